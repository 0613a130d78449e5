package resty

// RequestMiddleware runs before each attempt of a request, retries
// included.
type RequestMiddleware func(*Client, *Request) error

func (c *Client) OnBeforeRequest(m RequestMiddleware) *Client { return c }
func (c *Client) SetRetryCount(count int) *Client             { return c }
