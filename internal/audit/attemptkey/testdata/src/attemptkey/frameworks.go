package attemptkey

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// A gin or echo handler, like a net/http one, runs once per request.
func ginCheckout(c *charges) gin.HandlerFunc {
	return func(g *gin.Context) {
		if err := c.charge(g.Request.Context(), uuid.NewString(), 100); err != nil { // want `for each request to the handler at frameworks.go:\d+ reaches charge`
			g.JSON(http.StatusBadGateway, map[string]string{"error": err.Error()})
		}
	}
}

func ginCheckoutKeyed(c *charges) gin.HandlerFunc {
	return func(g *gin.Context) {
		if err := c.charge(g.Request.Context(), g.GetHeader("Idempotency-Key"), 100); err != nil {
			g.JSON(http.StatusBadGateway, map[string]string{"error": err.Error()})
		}
	}
}

func ginPayPage(g *gin.Context) {
	g.JSON(http.StatusOK, map[string]string{"idempotency_key": uuid.NewString()})
}

func (c *charges) echoCheckout(e echo.Context) error {
	if err := c.charge(e.Request().Context(), uuid.NewString(), 100); err != nil { // want `for each request to echoCheckout reaches charge`
		return e.JSON(http.StatusBadGateway, map[string]string{"error": err.Error()})
	}
	return e.JSON(http.StatusOK, nil)
}

// A gRPC service method runs once per call, and a client's retry calls it
// again.
type UnimplementedPaymentsServer struct{}

type createPaymentRequest struct {
	OrderID string
	Amount  int64
}

type createPaymentResponse struct{ ID string }

type paymentsServer struct {
	UnimplementedPaymentsServer
	c *charges
}

func (s *paymentsServer) CreatePayment(ctx context.Context, req *createPaymentRequest) (*createPaymentResponse, error) {
	if err := s.c.charge(ctx, uuid.NewString(), req.Amount); err != nil { // want `for each request to CreatePayment reaches charge`
		return nil, err
	}
	return &createPaymentResponse{ID: req.OrderID}, nil
}

func (s *paymentsServer) CreatePaymentForOrder(ctx context.Context, req *createPaymentRequest) (*createPaymentResponse, error) { // want CreatePaymentForOrder:"parameter 1 reaches charge"
	if err := s.c.charge(ctx, "pay-"+req.OrderID, req.Amount); err != nil {
		return nil, err
	}
	return &createPaymentResponse{ID: req.OrderID}, nil
}

// A service with the same shape that no gRPC server embeds is called
// from wherever its callers are.
type paymentsService struct{ c *charges }

func (s *paymentsService) CreatePayment(ctx context.Context, req *createPaymentRequest) (*createPaymentResponse, error) { // want CreatePayment:"makes uuid.NewString"
	if err := s.c.charge(ctx, uuid.NewString(), req.Amount); err != nil {
		return nil, err
	}
	return &createPaymentResponse{ID: req.OrderID}, nil
}

// A reply that hands the client a key is made where the client acts once.
type issueKeyReply struct{ IdempotencyKey string }

func (s *paymentsServer) IssueKey(ctx context.Context, req *createPaymentRequest) (*issueKeyReply, error) {
	return &issueKeyReply{IdempotencyKey: uuid.NewString()}, nil
}

func (s *paymentsServer) IssueKeyHeld(ctx context.Context, req *createPaymentRequest) (*issueKeyReply, error) {
	reply := &issueKeyReply{}
	reply.IdempotencyKey = uuid.NewString()
	return reply, nil
}
