package wire

import (
	"fmt"
	"strconv"

	"github.com/tinylib/msgp/msgp"
)

// The -msgp mode of the reference generator: struct maps keyed by each
// field's tag name (FieldTagName), no -1 struct name, fields in declaration
// order, and only the fields tagged omitempty left out when empty (a struct
// the generator inlined into its parent is written with every field).

// MsgpStruct collects the entries of one -msgp struct map (see StructWriter).
type MsgpStruct struct {
	fields StructWriter
}

// NewMsgpStruct starts the -msgp struct map of the struct called name.
func NewMsgpStruct(name string) *MsgpStruct {
	return &MsgpStruct{fields: StructWriter{name: name}}
}

// Field adds the entry of the field tagged tag, holding an encoded value.
func (s *MsgpStruct) Field(tag string, value []byte) {
	s.fields.entries = append(msgp.AppendString(s.fields.entries, tag), value...)
	s.fields.count++
}

// PutTag adds the entry of the field tagged tag holding value as encoded by appendValue.
func PutTag[T any](s *MsgpStruct, tag string, appendValue Appender[T], value T) {
	if value, ok := encode(&s.fields, strconv.Quote(tag), appendValue, value); ok {
		s.Field(tag, value)
	}
}

// AppendTo appends the struct map to o (no struct name: -msgp writes none).
func (s *MsgpStruct) AppendTo(o []byte) ([]byte, error) {
	return s.fields.AppendTo(o, false)
}

// ReadTagFields reads the -msgp struct map of the struct called name, calling
// readField for each entry by its key; readField skips the keys it does not
// know. Keys are read as the generated reader reads them (msgp's
// ReadMapKeyZC): a str or a bin, anything else an error. A nil reads as a
// struct with every field zero; the caller zeroes the struct first.
func ReadTagFields(b []byte, name string, readField func(tag string, b []byte) ([]byte, error)) ([]byte, error) {
	if msgp.IsNil(b) {
		return b[1:], nil
	}
	entries, b, err := msgp.ReadMapHeaderBytes(b)
	if err != nil {
		return b, fmt.Errorf("%s: %w", name, err)
	}
	for range entries {
		var key []byte
		if key, b, err = msgp.ReadMapKeyZC(b); err != nil {
			return b, fmt.Errorf("%s: key: %w", name, err)
		}
		if b, err = readField(string(key), b); err != nil {
			return b, fmt.Errorf("%s: %q: %w", name, key, err)
		}
	}
	return b, nil
}

// ReadRawExtension reads an extension of the type expected (the reference's
// generated reader gives its RawExtension the type already in the field and
// rejects another); nil reads as the empty extension of that type.
func ReadRawExtension(b []byte, typ int8) (msgp.RawExtension, []byte, error) {
	ext := msgp.RawExtension{Type: typ}
	if msgp.IsNil(b) {
		return ext, b[1:], nil
	}
	rest, err := msgp.ReadExtensionBytes(b, &ext)
	return ext, rest, err
}

// AppendRawExtension appends an extension as the reference writes it (AppendExtension).
func AppendRawExtension(o []byte, ext msgp.RawExtension) ([]byte, error) {
	return AppendExtension(o, &ext)
}

// ReadNumber reads a msgp.Number as the runtime's Number does: any integer or
// float, in its wire family; nil and the rest are errors.
func ReadNumber(b []byte) (msgp.Number, []byte, error) {
	var n msgp.Number
	rest, err := n.UnmarshalMsg(b)
	return n, rest, err
}

// AppendNumber appends a msgp.Number in its family.
func AppendNumber(o []byte, n msgp.Number) ([]byte, error) { return n.MarshalMsg(o) }

// ReadRaw reads a msgp.Raw: the next value's bytes (nil: empty).
func ReadRaw(b []byte) (msgp.Raw, []byte, error) {
	var r msgp.Raw
	rest, err := r.UnmarshalMsg(b)
	return r, rest, err
}

// AppendRaw appends a msgp.Raw verbatim (empty: nil).
func AppendRaw(o []byte, r msgp.Raw) ([]byte, error) { return r.MarshalMsg(o) }
