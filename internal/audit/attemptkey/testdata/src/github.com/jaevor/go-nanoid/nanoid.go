package nanoid

func Standard(length int) (func() string, error) { return nil, nil }

func Canonic() (func() string, error) { return nil, nil }

func CustomASCII(alphabet string, length int) (func() string, error) { return nil, nil }
