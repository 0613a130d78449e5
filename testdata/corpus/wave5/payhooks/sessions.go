package payhooks

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type sessionRequest struct {
	OrderID  string `json:"order_id"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

const sessionTTL = 24 * time.Hour

func (rc *Receiver) claimSession(ctx context.Context, key string) (bool, error) {
	_, err := rc.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(rc.sessions),
		Item: map[string]types.AttributeValue{
			"idempotency_key": strAttr(key),
			"status":          strAttr("IN_PROGRESS"),
			"expires_at":      numAttr(time.Now().Add(sessionTTL).Unix()),
		},
		ConditionExpression: aws.String("attribute_not_exists(idempotency_key)"),
	})
	if conditionFailed(err) {
		return false, nil
	}
	return err == nil, err
}

func (rc *Receiver) releaseSession(ctx context.Context, key string) {
	_, _ = rc.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(rc.sessions),
		Key:       map[string]types.AttributeValue{"idempotency_key": strAttr(key)},
	})
}

func (rc *Receiver) sessionRecord(ctx context.Context, key string) (map[string]types.AttributeValue, error) {
	out, err := rc.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(rc.sessions),
		Key:            map[string]types.AttributeValue{"idempotency_key": strAttr(key)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

func attrString(item map[string]types.AttributeValue, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// CreatePaymentSession opens a card-payment session for an order. The
// storefront sends an Idempotency-Key so a double click opens one session.
//
// corpus: bug cacheresponse
// modelled on: imrishuroy/go-idempotent-orderflow internal/idempotency/store.go (IN_PROGRESS record by conditional put, later set to DONE)
func (rc *Receiver) CreatePaymentSession(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
		return
	}
	var req sessionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := rc.claimSession(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		item, err := rc.sessionRecord(ctx, key)
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		if attrString(item, "status") == "DONE" {
			w.WriteHeader(http.StatusCreated)
			return
		}
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	sess, err := rc.gw.CreateSession(ctx, req.OrderID, req.Amount, req.Currency)
	if err != nil {
		rc.releaseSession(context.WithoutCancel(ctx), key)
		http.Error(w, "gateway error", http.StatusBadGateway)
		return
	}
	_, err = rc.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(rc.sessions),
		Key:                       map[string]types.AttributeValue{"idempotency_key": strAttr(key)},
		UpdateExpression:          aws.String("SET #s = :done, updated_at = :now"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": strAttr("DONE"), ":now": numAttr(time.Now().Unix())},
	})
	if err != nil {
		rc.log.WarnContext(ctx, "complete session key", "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(sess)
}

// CreatePaymentSessionReplaying opens a card-payment session for an order;
// the session is stored with the key and a repeat gets it back.
//
// corpus: ok cacheresponse
// modelled on: imrishuroy/go-idempotent-orderflow internal/idempotency/store.go (MarkDone stores response_body and response_status with the DONE status)
func (rc *Receiver) CreatePaymentSessionReplaying(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
		return
	}
	var req sessionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := rc.claimSession(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		item, err := rc.sessionRecord(ctx, key)
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		if attrString(item, "status") == "DONE" {
			code, _ := strconv.Atoi(attrString(item, "response_status"))
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(code)
			_, _ = w.Write([]byte(attrString(item, "response_body")))
			return
		}
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	sess, err := rc.gw.CreateSession(ctx, req.OrderID, req.Amount, req.Currency)
	if err != nil {
		rc.releaseSession(context.WithoutCancel(ctx), key)
		http.Error(w, "gateway error", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(sess)
	_, err = rc.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(rc.sessions),
		Key:                      map[string]types.AttributeValue{"idempotency_key": strAttr(key)},
		UpdateExpression:         aws.String("SET #s = :done, response_body = :rb, response_status = :rs, updated_at = :now"),
		ExpressionAttributeNames: map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":done": strAttr("DONE"),
			":rb":   strAttr(string(body)),
			":rs":   strAttr(strconv.Itoa(http.StatusCreated)),
			":now":  numAttr(time.Now().Unix()),
		},
	})
	if err != nil {
		rc.log.WarnContext(ctx, "complete session key", "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}
