package amqp091

// Delivery is a message a consumer received.
type Delivery struct {
	Headers     Table
	MessageId   string
	DeliveryTag uint64
	Body        []byte
}

func (d Delivery) Ack(multiple bool) error { return nil }
