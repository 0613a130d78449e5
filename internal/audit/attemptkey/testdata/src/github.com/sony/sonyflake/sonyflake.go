package sonyflake

type Settings struct{ MachineID func() (uint16, error) }

type Sonyflake struct{ sequence uint16 }

func NewSonyflake(st Settings) *Sonyflake { return nil }

func (sf *Sonyflake) NextID() (uint64, error) { return 0, nil }
