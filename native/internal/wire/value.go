// Package wire holds the DAL's MessagePack data model: an ordered value tree
// decoded from a request, and the encoders for responses.
//
// Map order matters to the DAL (a filter's entries become SQL in map order,
// and the SQL text is the prepared-statement cache key), so maps are kept as
// ordered key/value pairs rather than Go maps, which would shuffle them.
package wire

import "math"

// Kind is the MessagePack family of a Value.
type Kind uint8

const (
	Nil Kind = iota
	Bool
	Int   // fits in int64 (including unsigned encodings that fit)
	Uint  // unsigned and above math.MaxInt64
	Float // float32 and float64, widened
	Str
	Bin
	Array
	Map
)

var kindNames = [...]string{"nil", "bool", "integer", "integer", "float", "string", "binary", "array", "map"}

// String names the kind the way error messages show it to users.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Value is one decoded MessagePack value.
//
// Str and Bin point into the request buffer without copying (the request
// outlives every use of the tree, which is discarded when the call returns).
// Map entries are stored in Items as key, value, key, value, … in wire order.
type Value struct {
	Kind  Kind
	pos   uint32 // scalars decoded from a request: 1 + their index in request order (Pos)
	num   uint64 // Bool (0/1), Int (two's complement), Uint, Float (IEEE bits)
	Bytes []byte
	Items []Value
}

// MakeInt returns an Int value; used by tests and by callers that synthesise parameters.
func MakeInt(i int64) Value { return Value{Kind: Int, num: uint64(i)} }

// MakeFloat returns a Float value.
func MakeFloat(f float64) Value { return Value{Kind: Float, num: math.Float64bits(f)} }

// MakeStr returns a Str value.
func MakeStr(s string) Value { return Value{Kind: Str, Bytes: []byte(s)} }

// MakeBool returns a Bool value.
func MakeBool(b bool) Value {
	if b {
		return Value{Kind: Bool, num: 1}
	}
	return Value{Kind: Bool}
}

// Pos is the index of a scalar among the scalars of the request it was
// decoded from, in wire order, as Flat.Scalars holds them; -1 for a
// container or a value made rather than decoded.
func (v Value) Pos() int { return int(v.pos) - 1 }

func (v Value) Int() int64     { return int64(v.num) }
func (v Value) Uint() uint64   { return v.num }
func (v Value) Float() float64 { return math.Float64frombits(v.num) }
func (v Value) Bool() bool     { return v.num != 0 }

// IsScalar reports whether v can be bound as an SQL parameter.
func (v Value) IsScalar() bool { return v.Kind <= Bin }

// Len is the number of elements of an Array or entries of a Map.
func (v Value) Len() int {
	if v.Kind == Map {
		return len(v.Items) / 2
	}
	return len(v.Items)
}

// Key and Val return the i-th entry of a Map.
func (v Value) Key(i int) Value { return v.Items[2*i] }
func (v Value) Val(i int) Value { return v.Items[2*i+1] }

// Get returns the value stored under a string key of a Map.
func (v Value) Get(key string) (Value, bool) {
	for i := 0; i+1 < len(v.Items); i += 2 {
		k := v.Items[i]
		if k.Kind == Str && string(k.Bytes) == key {
			return v.Items[i+1], true
		}
	}
	return Value{}, false
}
