// Package clause is a minimal copy of gorm.io/gorm/clause's signatures.
package clause

type Builder interface{ WriteString(string) (int, error) }

type Expression interface{ Build(builder Builder) }

type Column struct {
	Table string
	Name  string
}

type Set []Assignment

type Assignment struct {
	Column Column
	Value  interface{}
}

type Where struct{ Exprs []Expression }

type OnConflict struct {
	Columns      []Column
	Where        Where
	TargetWhere  Where
	OnConstraint string
	DoNothing    bool
	DoUpdates    Set
	UpdateAll    bool
}

func (OnConflict) Build(builder Builder) {}

type Table struct{ Name string }

type Locking struct {
	Strength string
	Table    Table
	Options  string
}

func (Locking) Build(builder Builder) {}
