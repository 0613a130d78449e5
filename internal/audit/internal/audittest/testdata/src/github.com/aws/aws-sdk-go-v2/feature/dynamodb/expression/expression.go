// Package expression is a minimal copy of github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression's signatures.
package expression

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

type NameBuilder struct{ name string }

func Name(name string) NameBuilder { return NameBuilder{name} }

type ValueBuilder struct{ value any }

func Value(value any) ValueBuilder { return ValueBuilder{value} }

type ConditionBuilder struct{}

func AttributeNotExists(nameBuilder NameBuilder) ConditionBuilder { return ConditionBuilder{} }

func (nb NameBuilder) Equal(right ValueBuilder) ConditionBuilder { return ConditionBuilder{} }

type Builder struct{}

func NewBuilder() Builder { return Builder{} }

func (b Builder) WithCondition(c ConditionBuilder) Builder { return b }

func (b Builder) Build() (Expression, error) { return Expression{}, nil }

type Expression struct{}

func (e Expression) Condition() *string                      { return nil }
func (e Expression) Names() map[string]string                { return nil }
func (e Expression) Values() map[string]types.AttributeValue { return nil }
