// Package gin is a minimal copy of github.com/gin-gonic/gin's signatures.
package gin

import "net/http"

type ResponseWriter interface {
	http.ResponseWriter
	Status() int
}

type HandlerFunc func(*Context)

type Context struct {
	Request *http.Request
	Writer  ResponseWriter
}

func (c *Context) Next()                                          {}
func (c *Context) Abort()                                         {}
func (c *Context) AbortWithStatus(code int)                       {}
func (c *Context) GetHeader(key string) string                    { return "" }
func (c *Context) Header(key, value string)                       {}
func (c *Context) Data(code int, contentType string, data []byte) {}
func (c *Context) JSON(code int, obj any)                         {}
