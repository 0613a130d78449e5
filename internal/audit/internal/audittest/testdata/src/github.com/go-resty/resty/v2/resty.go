// Package resty is a minimal copy of github.com/go-resty/resty/v2's signatures.
package resty

type Client struct{}

func New() *Client { return &Client{} }

func (c *Client) R() *Request { return &Request{} }

type Request struct{}

type Response struct{}

func (r *Request) SetHeader(header, value string) *Request { return r }
func (r *Request) SetBody(body any) *Request               { return r }
func (r *Request) Post(url string) (*Response, error)      { return nil, nil }
