package shortid

type Shortid struct{ worker uint }

func New(worker uint8, alphabet string, seed uint64) (*Shortid, error) { return nil, nil }

func Generate() (string, error) { return "", nil }

func MustGenerate() string { return "" }

func (sid *Shortid) Generate() (string, error) { return "", nil }
