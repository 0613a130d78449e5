package shortuuid

func New() string { return "" }

func NewWithNamespace(name string) string { return "" }
