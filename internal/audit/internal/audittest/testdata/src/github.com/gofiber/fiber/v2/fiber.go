// Package fiber is a minimal copy of github.com/gofiber/fiber/v2's signatures.
package fiber

import "context"

const (
	StatusOK                  = 200
	StatusCreated             = 201
	StatusNoContent           = 204
	StatusBadRequest          = 400
	StatusConflict            = 409
	StatusInternalServerError = 500
	StatusBadGateway          = 502
)

type Map map[string]any

type Ctx struct{}

func (c *Ctx) UserContext() context.Context                     { return context.Background() }
func (c *Ctx) Params(key string, defaultValue ...string) string { return "" }
func (c *Ctx) BodyParser(out any) error                         { return nil }
func (c *Ctx) Status(status int) *Ctx                           { return c }
func (c *Ctx) SendStatus(status int) error                      { return nil }
func (c *Ctx) JSON(data any, ctype ...string) error             { return nil }
func (c *Ctx) XML(data any) error                               { return nil }
func (c *Ctx) SendString(body string) error                     { return nil }
func (c *Ctx) Send(body []byte) error                           { return nil }
