package gonanoid

func Generate(alphabet string, size int) (string, error) { return "", nil }

func MustGenerate(alphabet string, size int) string { return "" }

func New(l ...int) (string, error) { return "", nil }

func Must(l ...int) string { return "" }
