package wire

import "github.com/tinylib/msgp/msgp"

// ReadIntf reads an interface{} value as the reference does: by its msgpack
// type alone. Integers become int64 (signed family and fixints) or uint64
// (uint family); maps need str (or bin) keys, so a struct map with integer
// keys is rejected; ext 3, 4 and 5 are complex64, complex128 and time, any
// other ext a *msgp.RawExtension.
func ReadIntf(b []byte) (any, []byte, error) {
	if len(b) == 0 {
		return nil, b, msgp.ErrShortBytes
	}
	switch msgp.NextType(b) {
	case msgp.NilType:
		return nil, b[1:], nil
	case msgp.BoolType:
		return msgp.ReadBoolBytes(b)
	case msgp.IntType:
		return msgp.ReadInt64Bytes(b)
	case msgp.UintType:
		return msgp.ReadUint64Bytes(b)
	case msgp.Float32Type:
		return msgp.ReadFloat32Bytes(b)
	case msgp.Float64Type:
		return msgp.ReadFloat64Bytes(b)
	case msgp.StrType:
		return msgp.ReadStringBytes(b)
	case msgp.BinType:
		return msgp.ReadBytesBytes(b, nil)
	case msgp.ArrayType:
		return ReadSlice(ReadIntf)(b)
	case msgp.MapType:
		return ReadMap(readMapKey, ReadIntf)(b)
	case msgp.Complex64Type, msgp.Complex128Type, msgp.TimeType, msgp.ExtensionType:
		return readIntfExt(b)
	default:
		return nil, b, msgp.InvalidPrefixError(b[0])
	}
}

// readIntfExt reads an ext in an interface{} by its type byte: ext 3, 4 and
// 5 must be the reference's complex64 (fixext8), complex128 (fixext16) and
// time (ext8 of 12 bytes), any other type is a raw extension. The runtime's
// NextType is not asked: it names a fixext8 or fixext16 that ends the buffer
// a plain extension (it wants more bytes than the ext holds), while the
// golden records (my/Sys_001: a complex128 ending the record) read as complex.
func readIntfExt(b []byte) (any, []byte, error) {
	typ, err := extType(b)
	if err != nil {
		return nil, b, err
	}
	switch typ {
	case msgp.Complex64Extension:
		return msgp.ReadComplex64Bytes(b)
	case msgp.Complex128Extension:
		return msgp.ReadComplex128Bytes(b)
	case msgp.TimeExtension:
		return ReadTime(b)
	}
	// The reference predates the msgpack timestamp (ext -1), which the
	// runtime calls TimeType: to the reference it is an ext like any other.
	raw := &msgp.RawExtension{Type: typ}
	rest, err := msgp.ReadExtensionBytes(b, raw)
	return raw, rest, err
}

// readMapKey reads the key of a map in an interface{} like the reference's
// ReadMapKeyZC: a str, a bin read as a string, or a nil read as "".
func readMapKey(b []byte) (string, []byte, error) {
	if msgp.IsNil(b) {
		return "", b[1:], nil
	}
	if msgp.NextType(b) == msgp.BinType {
		key, rest, err := msgp.ReadBytesZC(b)
		return string(key), rest, err
	}
	return msgp.ReadStringBytes(b)
}

// extType is the type byte of the ext at the front of b.
func extType(b []byte) (int8, error) {
	at := 1 // fixext1-16: lead, type
	switch b[0] {
	case 0xc7: // ext8: lead, 1-byte length, type
		at = 2
	case 0xc8: // ext16: lead, 2-byte length, type
		at = 3
	case 0xc9: // ext32: lead, 4-byte length, type
		at = 5
	}
	if len(b) <= at {
		return 0, msgp.ErrShortBytes
	}
	return int8(b[at]), nil
}
