package storefront

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

// GiftCards sells gift cards through Stripe, behind a gin router and a
// gRPC service.
type GiftCards struct {
	Stripe *stripe.Client
}

func (g *GiftCards) charge(ctx context.Context, key, customer string, cents int64) (string, error) {
	params := &stripe.PaymentIntentCreateParams{
		Amount:   stripe.Int64(cents),
		Currency: stripe.String("eur"),
		Customer: stripe.String(customer),
	}
	params.SetIdempotencyKey(key)
	pi, err := g.Stripe.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		return "", err
	}
	return pi.ID, nil
}

type buyGiftCard struct {
	Customer string `json:"customer"`
	Cents    int64  `json:"cents"`
}

// Buy is the gin handler of POST /gift-cards; it draws the Stripe key
// per request, so the app's retry after a timeout buys a second card.
//
// corpus: bug attemptkey
// modelled on: gin-gonic/examples basic/main.go (a gin handler reading a JSON body and answering with c.JSON)
func (g *GiftCards) Buy(c *gin.Context) {
	var in buyGiftCard
	if err := c.ShouldBindJSON(&in); err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"error": err.Error()})
		return
	}
	id, err := g.charge(c.Request.Context(), uuid.NewString(), in.Customer, in.Cents)
	if err != nil {
		c.JSON(http.StatusBadGateway, gin.H{"error": "payment failed"})
		return
	}
	c.JSON(http.StatusCreated, gin.H{"payment_intent": id})
}

// BuyKeyed uses the Idempotency-Key the app sends with every attempt.
//
// corpus: ok attemptkey
// modelled on: gin-gonic/examples basic/main.go (a gin handler reading a JSON body and answering with c.JSON)
func (g *GiftCards) BuyKeyed(c *gin.Context) {
	key := c.GetHeader("Idempotency-Key")
	if key == "" {
		c.JSON(http.StatusBadRequest, gin.H{"error": "Idempotency-Key required"})
		return
	}
	var in buyGiftCard
	if err := c.ShouldBindJSON(&in); err != nil {
		c.JSON(http.StatusBadRequest, gin.H{"error": err.Error()})
		return
	}
	id, err := g.charge(c.Request.Context(), "giftcard:"+in.Customer+":"+key, in.Customer, in.Cents)
	if err != nil {
		c.JSON(http.StatusBadGateway, gin.H{"error": "payment failed"})
		return
	}
	c.JSON(http.StatusCreated, gin.H{"payment_intent": id})
}

// UnimplementedGiftCardsServer stands in for what protoc-gen-go-grpc
// generates for the GiftCards service.
type UnimplementedGiftCardsServer struct{}

// BuyRequest and BuyReply are the service's messages.
type BuyRequest struct {
	Customer  string
	Cents     int64
	RequestId string
}

// BuyReply carries the payment made.
type BuyReply struct {
	PaymentIntent string
}

// GiftCardsServer serves the GiftCards gRPC service.
type GiftCardsServer struct {
	UnimplementedGiftCardsServer
	Cards *GiftCards
}

// Buy draws the Stripe key per call: the client's retry policy calls it
// again after an UNAVAILABLE, and the card is bought twice.
//
// corpus: bug attemptkey
// modelled on: grpc/grpc-go examples/helloworld/greeter_server/main.go (a server type embedding the Unimplemented server, one method per RPC)
func (s *GiftCardsServer) Buy(ctx context.Context, req *BuyRequest) (*BuyReply, error) {
	id, err := s.Cards.charge(ctx, "giftcard-"+uuid.NewString(), req.Customer, req.Cents)
	if err != nil {
		return nil, err
	}
	return &BuyReply{PaymentIntent: id}, nil
}

// BuyOnce keys the purchase by the request ID the client keeps across its
// retries.
//
// corpus: ok attemptkey
// modelled on: grpc/grpc-go examples/helloworld/greeter_server/main.go (a server type embedding the Unimplemented server, one method per RPC)
func (s *GiftCardsServer) BuyOnce(ctx context.Context, req *BuyRequest) (*BuyReply, error) {
	id, err := s.Cards.charge(ctx, "giftcard-"+req.RequestId, req.Customer, req.Cents)
	if err != nil {
		return nil, err
	}
	return &BuyReply{PaymentIntent: id}, nil
}

// CheckoutTokenReply hands the app the key its purchase will carry.
type CheckoutTokenReply struct {
	IdempotencyKey string
}

// CheckoutToken is called when the app opens the checkout screen; the
// key it answers with is sent with every attempt of the purchase.
//
// corpus: ok attemptkey
// modelled on: grpc/grpc-go examples/helloworld/greeter_server/main.go (a server type embedding the Unimplemented server, one method per RPC)
func (s *GiftCardsServer) CheckoutToken(ctx context.Context, req *BuyRequest) (*CheckoutTokenReply, error) {
	return &CheckoutTokenReply{IdempotencyKey: uuid.NewString()}, nil
}
