package snowflake

type Node struct{ node int64 }

type ID int64

func NewNode(node int64) (*Node, error) { return nil, nil }

func (n *Node) Generate() ID { return 0 }

func (f ID) String() string { return "" }

func (f ID) Int64() int64 { return int64(f) }

func ParseString(id string) (ID, error) { return 0, nil }
