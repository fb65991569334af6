package zp

// A, the ZebraPack README's record, also carries the code tinylib/msgp's own
// generator writes for it (a_gen.go: MarshalMsg, UnmarshalMsg, EncodeMsg,
// DecodeMsg, Msgsize; field names as keys, msgp's own format, not ZebraPack):
// benchmarks/bench_arrow.py measures zebrapack.arrow against it on the same
// records (zpeer msgp-bench, msgpbench.go). a_gen.go is committed, so that no
// build needs the generator; after changing A, regenerate it from tests/go:
//
//	go generate ./zp

//go:generate go run github.com/tinylib/msgp@v1.6.5 -file a.go -o a_gen.go -tests=false

import (
	"time"

	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// A is the struct from the ZebraPack README benchmarks.
type A struct {
	Name   string
	Bday   time.Time
	Phone  string
	Sibs   int
	GPA    float64
	Friend bool
}

// AppendZ appends a as a ZebraPack struct map.
func (a *A) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("A")
	if a.Name != "" {
		w.Field(0, msgp.AppendString(nil, a.Name))
	}
	if !a.Bday.IsZero() {
		w.Field(1, msgp.AppendTime(nil, a.Bday))
	}
	if a.Phone != "" {
		w.Field(2, msgp.AppendString(nil, a.Phone))
	}
	if a.Sibs != 0 {
		w.Field(3, msgp.AppendInt(nil, a.Sibs))
	}
	if a.GPA != 0 {
		w.Field(4, msgp.AppendFloat64(nil, a.GPA))
	}
	if a.Friend {
		w.Field(5, msgp.AppendBool(nil, a.Friend))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads a from the front of b and returns the rest.
func (a *A) UnmarshalZ(b []byte) ([]byte, error) {
	*a = A{}
	return wire.ReadFields(b, "A", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			a.Name, rest, err = wire.ReadString(b)
		case 1:
			a.Bday, rest, err = wire.ReadTime(b)
		case 2:
			a.Phone, rest, err = wire.ReadString(b)
		case 3:
			a.Sibs, rest, err = wire.ReadInt[int](b)
		case 4:
			a.GPA, rest, err = wire.ReadFloat64(b)
		case 5:
			a.Friend, rest, err = wire.ReadBool(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
