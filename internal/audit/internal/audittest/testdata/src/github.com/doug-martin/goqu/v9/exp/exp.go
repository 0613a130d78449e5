// Package exp is a minimal copy of github.com/doug-martin/goqu/v9/exp's signatures.
package exp

type Expression interface {
	Expression() Expression
}

type Ex map[string]interface{}

func (e Ex) Expression() Expression { return e }

type Record map[string]interface{}

type BooleanExpression interface {
	Expression
}

type IdentifierExpression interface {
	Expression
	Eq(interface{}) BooleanExpression
}

type ConflictExpression interface {
	Action() int
}

type WaitOption int

const Wait WaitOption = 0
