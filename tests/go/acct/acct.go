// Package acct mirrors tests/golden2/schemas/acct.go: named types of every
// kind, which the reference resolves to their underlying types (Role, a
// uint8, makes []Role an array of integers: `zpeer:"u8"`), embedded structs
// by value (Audit, always written) and by pointer (Geo), pointers to
// primitives and named types, and a map keyed by a named type, which the
// generator silently makes a Skip field. Skip fields (OldName, OldPlan,
// Unused, Members, Session) have no Go field here: they are never written.
package acct

import (
	"time"

	"github.com/tinylib/msgp/msgp"

	"zpeer/wire"
)

// Types are the structs of the schema, by name.
var Types = map[string]func() wire.Record{
	"Audit":   func() wire.Record { return new(Audit) },
	"Geo":     func() wire.Record { return new(Geo) },
	"Account": func() wire.Record { return new(Account) },
	"Page":    func() wire.Record { return new(Page) },
}

type (
	UserID uint64
	OrgID  int32
	Status int8
	Role   uint8
	Email  string
	Cents  int64
	Ratio  float32
	Tags   []string
	Matrix [][]float32
	Labels map[string]string
	Blob   []byte
	Flags  uint16
	Quota  map[string]int64
	Scores []float64
)

// Audit is embedded in Account by value.
type Audit struct {
	Created   time.Time
	Updated   time.Time
	CreatedBy UserID
	Rev       uint32
}

// AppendZ appends a as a ZebraPack struct map.
func (a *Audit) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Audit")
	if !a.Created.IsZero() {
		w.Field(0, msgp.AppendTime(nil, a.Created))
	}
	if !a.Updated.IsZero() {
		w.Field(1, msgp.AppendTime(nil, a.Updated))
	}
	if a.CreatedBy != 0 {
		w.Field(2, msgp.AppendUint64(nil, uint64(a.CreatedBy)))
	}
	if a.Rev != 0 {
		w.Field(3, msgp.AppendUint32(nil, a.Rev))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads a from the front of b and returns the rest.
func (a *Audit) UnmarshalZ(b []byte) ([]byte, error) {
	*a = Audit{}
	return wire.ReadFields(b, "Audit", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			a.Created, rest, err = wire.ReadTime(b)
		case 1:
			a.Updated, rest, err = wire.ReadTime(b)
		case 2:
			a.CreatedBy, rest, err = wire.ReadUint[UserID](b)
		case 3:
			a.Rev, rest, err = wire.ReadUint[uint32](b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Geo is embedded in Account by pointer.
type Geo struct {
	Lat  float64
	Lon  float64
	City string
}

// AppendZ appends g as a ZebraPack struct map.
func (g *Geo) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Geo")
	if g.Lat != 0 {
		w.Field(0, msgp.AppendFloat64(nil, g.Lat))
	}
	if g.Lon != 0 {
		w.Field(1, msgp.AppendFloat64(nil, g.Lon))
	}
	if g.City != "" {
		w.Field(2, msgp.AppendString(nil, g.City))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads g from the front of b and returns the rest.
func (g *Geo) UnmarshalZ(b []byte) ([]byte, error) {
	*g = Geo{}
	return wire.ReadFields(b, "Geo", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			g.Lat, rest, err = wire.ReadFloat64(b)
		case 1:
			g.Lon, rest, err = wire.ReadFloat64(b)
		case 2:
			g.City, rest, err = wire.ReadString(b)
		default:
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Account holds a field of every named type, and pointers to them.
type Account struct {
	Audit
	*Geo
	ID       UserID
	Org      OrgID
	Email    Email
	State    Status
	Roles    []Role `zpeer:"u8"`
	Balance  Cents
	Discount Ratio
	Tags     Tags
	Weights  Matrix
	Labels   Labels
	Avatar   Blob
	Perms    Flags
	Quota    Quota
	LegacyID int64 // deprecated, still written and read
	Nick     *string
	Age      *int32
	Verified *bool
	LastSeen *time.Time
	Limit    *uint16
	Score    *float64
	Phase    *complex64
	Manager  *UserID
	Mood     *Status
	Prefs    *Tags
	Friends  []UserID
	ByOrg    map[int32]Tags
	Scores   Scores
	Notes    string
	Ratio8   *int8
}

var (
	appendStrings = wire.AppendSlice(wire.Infallible(msgp.AppendString))
	readStrings   = wire.ReadSlice(wire.ReadString)
	readTags      = func(b []byte) (Tags, []byte, error) { return readStrings(b) }
	appendTags    = func(o []byte, t Tags) ([]byte, error) { return appendStrings(o, t) }
	appendFloat32 = wire.Infallible(msgp.AppendFloat32)
	appendTime    = wire.Infallible(msgp.AppendTime)
)

// AppendZ appends a as a ZebraPack struct map.
func (a *Account) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Account")
	wire.Put(w, 0, wire.AppendStruct[Audit](structNames), a.Audit) // a struct value is never empty
	if a.Geo != nil {
		wire.Put(w, 1, wire.AppendStruct[Geo](structNames), *a.Geo)
	}
	if a.ID != 0 {
		w.Field(2, msgp.AppendUint64(nil, uint64(a.ID)))
	}
	if a.Org != 0 {
		w.Field(3, msgp.AppendInt32(nil, int32(a.Org)))
	}
	if a.Email != "" {
		w.Field(4, msgp.AppendString(nil, string(a.Email)))
	}
	if a.State != 0 {
		w.Field(5, msgp.AppendInt8(nil, int8(a.State)))
	}
	if len(a.Roles) != 0 {
		wire.Put(w, 6, wire.AppendSlice(wire.AppendUnsigned[Role]), a.Roles)
	}
	if a.Balance != 0 {
		w.Field(7, msgp.AppendInt64(nil, int64(a.Balance)))
	}
	if a.Discount != 0 {
		w.Field(8, msgp.AppendFloat32(nil, float32(a.Discount)))
	}
	if len(a.Tags) != 0 {
		wire.Put(w, 9, appendTags, a.Tags)
	}
	if len(a.Weights) != 0 {
		wire.Put(w, 10, wire.AppendSlice(wire.AppendSlice(appendFloat32)), [][]float32(a.Weights))
	}
	if len(a.Labels) != 0 {
		wire.Put(w, 11, wire.AppendMap(msgp.AppendString, wire.Infallible(msgp.AppendString)), map[string]string(a.Labels))
	}
	if len(a.Avatar) != 0 {
		w.Field(12, msgp.AppendBytes(nil, a.Avatar))
	}
	if a.Perms != 0 {
		w.Field(13, msgp.AppendUint16(nil, uint16(a.Perms)))
	}
	if len(a.Quota) != 0 {
		wire.Put(w, 14, wire.AppendMap(msgp.AppendString, wire.Infallible(msgp.AppendInt64)), map[string]int64(a.Quota))
	}
	if a.LegacyID != 0 {
		w.Field(17, msgp.AppendInt64(nil, a.LegacyID))
	}
	if a.Nick != nil {
		w.Field(19, msgp.AppendString(nil, *a.Nick))
	}
	if a.Age != nil {
		w.Field(20, msgp.AppendInt32(nil, *a.Age))
	}
	if a.Verified != nil {
		w.Field(21, msgp.AppendBool(nil, *a.Verified))
	}
	if a.LastSeen != nil {
		wire.Put(w, 22, appendTime, *a.LastSeen)
	}
	if a.Limit != nil {
		w.Field(23, msgp.AppendUint16(nil, *a.Limit))
	}
	if a.Score != nil {
		w.Field(24, msgp.AppendFloat64(nil, *a.Score))
	}
	if a.Phase != nil {
		w.Field(25, msgp.AppendComplex64(nil, *a.Phase))
	}
	if a.Manager != nil {
		w.Field(26, msgp.AppendUint64(nil, uint64(*a.Manager)))
	}
	if a.Mood != nil {
		w.Field(27, msgp.AppendInt8(nil, int8(*a.Mood)))
	}
	if a.Prefs != nil {
		wire.Put(w, 28, appendTags, *a.Prefs)
	}
	if len(a.Friends) != 0 {
		wire.Put(w, 29, wire.AppendSlice(wire.AppendUnsigned[UserID]), a.Friends)
	}
	if len(a.ByOrg) != 0 {
		wire.Put(w, 30, wire.AppendMap(msgp.AppendInt32, appendTags), a.ByOrg)
	}
	if len(a.Scores) != 0 {
		wire.Put(w, 31, wire.AppendSlice(wire.Infallible(msgp.AppendFloat64)), []float64(a.Scores))
	}
	if a.Notes != "" {
		w.Field(32, msgp.AppendString(nil, a.Notes))
	}
	if a.Ratio8 != nil {
		w.Field(34, msgp.AppendInt8(nil, *a.Ratio8))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads a from the front of b and returns the rest.
func (a *Account) UnmarshalZ(b []byte) ([]byte, error) {
	*a = Account{}
	return wire.ReadFields(b, "Account", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			a.Audit, rest, err = wire.ReadStruct[Audit](b)
		case 1:
			a.Geo, rest, err = wire.ReadPointer(wire.ReadStruct[Geo])(b)
		case 2:
			a.ID, rest, err = wire.ReadUint[UserID](b)
		case 3:
			a.Org, rest, err = wire.ReadInt[OrgID](b)
		case 4:
			var s string
			s, rest, err = wire.ReadString(b)
			a.Email = Email(s)
		case 5:
			a.State, rest, err = wire.ReadInt[Status](b)
		case 6:
			a.Roles, rest, err = wire.ReadSlice(wire.ReadUint[Role])(b)
		case 7:
			a.Balance, rest, err = wire.ReadInt[Cents](b)
		case 8:
			var f float32
			f, rest, err = wire.ReadFloat32(b)
			a.Discount = Ratio(f)
		case 9:
			a.Tags, rest, err = readTags(b)
		case 10:
			a.Weights, rest, err = wire.ReadSlice(wire.ReadSlice(wire.ReadFloat32))(b)
		case 11:
			a.Labels, rest, err = wire.ReadMap(wire.ReadString, wire.ReadString)(b)
		case 12:
			a.Avatar, rest, err = wire.ReadBytes(b)
		case 13:
			a.Perms, rest, err = wire.ReadUint[Flags](b)
		case 14:
			a.Quota, rest, err = wire.ReadMap(wire.ReadString, wire.ReadInt[int64])(b)
		case 17:
			a.LegacyID, rest, err = wire.ReadInt[int64](b)
		case 19:
			a.Nick, rest, err = wire.ReadPointer(wire.ReadString)(b)
		case 20:
			a.Age, rest, err = wire.ReadPointer(wire.ReadInt[int32])(b)
		case 21:
			a.Verified, rest, err = wire.ReadPointer(wire.ReadBool)(b)
		case 22:
			a.LastSeen, rest, err = wire.ReadPointer(wire.ReadTime)(b)
		case 23:
			a.Limit, rest, err = wire.ReadPointer(wire.ReadUint[uint16])(b)
		case 24:
			a.Score, rest, err = wire.ReadPointer(wire.ReadFloat64)(b)
		case 25:
			a.Phase, rest, err = wire.ReadPointer(wire.ReadComplex64)(b)
		case 26:
			a.Manager, rest, err = wire.ReadPointer(wire.ReadUint[UserID])(b)
		case 27:
			a.Mood, rest, err = wire.ReadPointer(wire.ReadInt[Status])(b)
		case 28:
			a.Prefs, rest, err = wire.ReadPointer(readTags)(b)
		case 29:
			a.Friends, rest, err = wire.ReadSlice(wire.ReadUint[UserID])(b)
		case 30:
			a.ByOrg, rest, err = wire.ReadMap(wire.ReadInt[int32], readTags)(b)
		case 31:
			a.Scores, rest, err = wire.ReadSlice(wire.ReadFloat64)(b)
		case 32:
			a.Notes, rest, err = wire.ReadString(b)
		case 34:
			a.Ratio8, rest, err = wire.ReadPointer(wire.ReadInt[int8])(b)
		default: // zids 15, 16, 18, 33 (Skip fields) and zids of newer schemas
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}

// Page is what a list endpoint returns.
type Page struct {
	Items   []*Account
	ByID    map[int64]*Account
	ByEmail map[string]*Account
	Next    *string
	Total   uint64
	TookNs  int64
}

// AppendZ appends p as a ZebraPack struct map.
func (p *Page) AppendZ(o []byte, structNames bool) ([]byte, error) {
	w := wire.NewStruct("Page")
	account := wire.AppendPointer(wire.AppendStruct[Account](structNames))
	if len(p.Items) != 0 {
		wire.Put(w, 0, wire.AppendSlice(account), p.Items)
	}
	if len(p.ByID) != 0 {
		wire.Put(w, 1, wire.AppendMap(msgp.AppendInt64, account), p.ByID)
	}
	if len(p.ByEmail) != 0 {
		wire.Put(w, 2, wire.AppendMap(msgp.AppendString, account), p.ByEmail)
	}
	if p.Next != nil {
		w.Field(3, msgp.AppendString(nil, *p.Next))
	}
	if p.Total != 0 {
		w.Field(4, msgp.AppendUint64(nil, p.Total))
	}
	if p.TookNs != 0 {
		w.Field(6, msgp.AppendInt64(nil, p.TookNs))
	}
	return w.AppendTo(o, structNames)
}

// UnmarshalZ reads p from the front of b and returns the rest.
func (p *Page) UnmarshalZ(b []byte) ([]byte, error) {
	*p = Page{}
	account := wire.ReadPointer(wire.ReadStruct[Account])
	return wire.ReadFields(b, "Page", func(zid int64, b []byte) (rest []byte, err error) {
		switch zid {
		case 0:
			p.Items, rest, err = wire.ReadSlice(account)(b)
		case 1:
			p.ByID, rest, err = wire.ReadMap(wire.ReadInt[int64], account)(b)
		case 2:
			p.ByEmail, rest, err = wire.ReadMap(wire.ReadString, account)(b)
		case 3:
			p.Next, rest, err = wire.ReadPointer(wire.ReadString)(b)
		case 4:
			p.Total, rest, err = wire.ReadUint[uint64](b)
		case 6:
			p.TookNs, rest, err = wire.ReadInt[int64](b)
		default: // zid 5 (Dropped, a Skip field) and zids of newer schemas
			rest, err = msgp.Skip(b)
		}
		return rest, err
	})
}
