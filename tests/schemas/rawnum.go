package rawnum

// Our own schema of the reference runtime's msgp.Raw (an already encoded
// msgpack value, written verbatim) and msgp.Number (a number that keeps its
// wire family: int64, uint64, float32 or float64), as fields and in
// containers. The Go peer's package rawnum (tests/go/rawnum) mirrors it.

import "github.com/glycerine/zebrapack/msgp"

type Holder struct {
	Raw      msgp.Raw            `zid:"0"`
	Num      msgp.Number         `zid:"1"`
	Nums     []msgp.Number       `zid:"2"`
	Raws     []msgp.Raw          `zid:"3"`
	ByName   map[string]msgp.Raw `zid:"4"`
	MaybeNum *msgp.Number        `zid:"5"`
	Label    string              `zid:"6"`
}
