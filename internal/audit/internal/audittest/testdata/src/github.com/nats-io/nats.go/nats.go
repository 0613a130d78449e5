// Package nats is a minimal copy of github.com/nats-io/nats.go's signatures.
package nats

import "time"

const MsgIdHdr = "Nats-Msg-Id"

type Header map[string][]string

func (h Header) Add(key, value string) {}
func (h Header) Set(key, value string) {}
func (h Header) Get(key string) string { return "" }

type Msg struct {
	Subject string
	Reply   string
	Header  Header
	Data    []byte
	Sub     *Subscription
}

func NewMsg(subject string) *Msg { return &Msg{Subject: subject, Header: Header{}} }

func (m *Msg) Ack(opts ...AckOpt) error        { return nil }
func (m *Msg) Nak(opts ...AckOpt) error        { return nil }
func (m *Msg) Metadata() (*MsgMetadata, error) { return nil, nil }

type MsgMetadata struct {
	Sequence     SequencePair
	NumDelivered uint64
	Timestamp    time.Time
	Stream       string
	Consumer     string
}

type SequencePair struct {
	Consumer uint64
	Stream   uint64
}

type AckOpt interface{}
type PubOpt interface{}
type SubOpt interface{}

type PubAck struct {
	Stream    string
	Sequence  uint64
	Duplicate bool
}

type MsgHandler func(msg *Msg)

type Subscription struct{}

type Conn struct{}

func Connect(url string) (*Conn, error)                                      { return &Conn{}, nil }
func (nc *Conn) Publish(subj string, data []byte) error                      { return nil }
func (nc *Conn) PublishMsg(m *Msg) error                                     { return nil }
func (nc *Conn) Subscribe(subj string, cb MsgHandler) (*Subscription, error) { return nil, nil }
func (nc *Conn) QueueSubscribe(subj, queue string, cb MsgHandler) (*Subscription, error) {
	return nil, nil
}
func (nc *Conn) JetStream() (JetStreamContext, error) { return nil, nil }

type JetStreamContext interface {
	Publish(subj string, data []byte, opts ...PubOpt) (*PubAck, error)
	PublishMsg(m *Msg, opts ...PubOpt) (*PubAck, error)
	Subscribe(subj string, cb MsgHandler, opts ...SubOpt) (*Subscription, error)
}

// MsgId sets the message ID used for deduplication.
func MsgId(id string) PubOpt { return nil }
