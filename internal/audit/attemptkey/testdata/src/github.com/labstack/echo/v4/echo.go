// Package echo is a minimal copy of labstack/echo's request context.
package echo

import "net/http"

type Context interface {
	Request() *http.Request
	JSON(code int, i any) error
}
