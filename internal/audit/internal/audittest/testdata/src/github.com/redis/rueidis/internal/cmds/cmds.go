// Package cmds is a minimal copy of github.com/redis/rueidis/internal/cmds's signatures.
package cmds

type Completed struct{ cs []string }

type Cacheable Completed

type Builder struct{}

func (b Builder) Get() (c Get) { return }

type Get Completed

type GetKey Completed

func (c Get) Key(key string) GetKey { return GetKey(c) }

func (b Builder) Exists() (c Exists) { return }

type Exists Completed

type ExistsKey Completed

func (c Exists) Key(key ...string) ExistsKey { return ExistsKey(c) }

func (b Builder) Del() (c Del) { return }

type Del Completed

type DelKey Completed

func (c Del) Key(key ...string) DelKey { return DelKey(c) }

func (b Builder) Set() (c Set) { return }

type Set Completed

type SetKey Completed

func (c Set) Key(key string) SetKey { return SetKey(c) }

type SetValue Completed

func (c SetKey) Value(value string) SetValue { return SetValue(c) }

type SetConditionNx Completed

func (c SetValue) Nx() SetConditionNx { return SetConditionNx(c) }

type SetConditionXx Completed

func (c SetValue) Xx() SetConditionXx { return SetConditionXx(c) }

type SetExpirationExSeconds Completed

func (c SetConditionNx) ExSeconds(seconds int64) SetExpirationExSeconds {
	return SetExpirationExSeconds(c)
}

func (c SetValue) ExSeconds(seconds int64) SetExpirationExSeconds { return SetExpirationExSeconds(c) }

func (b Builder) Hset() (c Hset) { return }

type Hset Completed

type HsetKey Completed

func (c Hset) Key(key string) HsetKey { return HsetKey(c) }

type HsetFieldValue Completed

func (c HsetKey) FieldValue() HsetFieldValue { return HsetFieldValue(c) }

func (c HsetFieldValue) FieldValue(field string, value string) HsetFieldValue {
	return HsetFieldValue(c)
}

func (b Builder) Hsetnx() (c Hsetnx) { return }

type Hsetnx Completed

type HsetnxKey Completed

func (c Hsetnx) Key(key string) HsetnxKey { return HsetnxKey(c) }

type HsetnxField Completed

func (c HsetnxKey) Field(field string) HsetnxField { return HsetnxField(c) }

type HsetnxValue Completed

func (c HsetnxField) Value(value string) HsetnxValue { return HsetnxValue(c) }

func (b Builder) Hget() (c Hget) { return }

type Hget Completed

type HgetKey Completed

func (c Hget) Key(key string) HgetKey { return HgetKey(c) }

type HgetField Completed

func (c HgetKey) Field(field string) HgetField { return HgetField(c) }

func (b Builder) Sadd() (c Sadd) { return }

type Sadd Completed

type SaddKey Completed

func (c Sadd) Key(key string) SaddKey { return SaddKey(c) }

type SaddMember Completed

func (c SaddKey) Member(member ...string) SaddMember { return SaddMember(c) }

func (c DelKey) Build() Completed { return Completed(c) }

func (c ExistsKey) Build() Completed { return Completed(c) }

func (c GetKey) Build() Completed { return Completed(c) }

func (c HgetField) Build() Completed { return Completed(c) }

func (c HsetFieldValue) Build() Completed { return Completed(c) }

func (c HsetnxValue) Build() Completed { return Completed(c) }

func (c SaddMember) Build() Completed { return Completed(c) }

func (c SetConditionNx) Build() Completed { return Completed(c) }

func (c SetConditionXx) Build() Completed { return Completed(c) }

func (c SetExpirationExSeconds) Build() Completed { return Completed(c) }

func (c SetValue) Build() Completed { return Completed(c) }

func (c GetKey) Cache() Cacheable { return Cacheable(c) }
