package query

import "dalkit/native/internal/wire"

// method identifies a chainable method (docs/protocol.md, Methods).
type method uint8

const (
	mIn method = iota
	mFind
	mFields // also spelled Select
	mSort
	mLimit
	mOffset
	mJoin
	mGroup
	mInsert
	mSet
	mDelete
	mOnConflict
	mDoUpdate
	mDoNothing
	mTx
	numMethods
)

var methodNames = [numMethods]string{
	"In", "Find", "Fields", "Sort", "Limit", "Offset", "Join", "Group",
	"Insert", "Set", "Delete", "OnConflict", "DoUpdate", "DoNothing", "Tx",
}

const validMethods = "In, Find, Fields, Select, Sort, Limit, Offset, Join, Group, Insert, Set, Delete, OnConflict, DoUpdate, DoNothing, Tx"

func lookupMethod(name []byte) (method, bool) {
	switch string(name) { // compiled to comparisons, no allocation
	case "In":
		return mIn, true
	case "Find":
		return mFind, true
	case "Fields", "Select":
		return mFields, true
	case "Sort":
		return mSort, true
	case "Limit":
		return mLimit, true
	case "Offset":
		return mOffset, true
	case "Join":
		return mJoin, true
	case "Group":
		return mGroup, true
	case "Insert":
		return mInsert, true
	case "Set":
		return mSet, true
	case "Delete":
		return mDelete, true
	case "OnConflict":
		return mOnConflict, true
	case "DoUpdate":
		return mDoUpdate, true
	case "DoNothing":
		return mDoNothing, true
	case "Tx":
		return mTx, true
	}
	return 0, false
}

type methodSet uint16

func (s methodSet) has(m method) bool { return s&(1<<m) != 0 }

func setOf(ms ...method) methodSet {
	var s methodSet
	for _, m := range ms {
		s |= 1 << m
	}
	return s
}

// names lists the methods of s in canonical order, for error messages.
func (s methodSet) names() string {
	out := ""
	for m := method(0); m < numMethods; m++ {
		if s.has(m) {
			if out != "" {
				out += ", "
			}
			out += methodNames[m]
		}
	}
	return out
}

// allowed lists the methods each statement kind accepts. Anything else is an
// error instead of being ignored, so that e.g. a Find on Insert or a Limit on
// Delete is not silently dropped.
var allowed = [...]methodSet{
	Select: setOf(mIn, mFind, mFields, mSort, mLimit, mOffset, mJoin, mGroup),
	Insert: setOf(mIn, mInsert, mOnConflict, mDoUpdate, mDoNothing),
	Update: setOf(mIn, mSet, mFind),
	Delete: setOf(mIn, mDelete, mFind),
}

// plan is one command list sorted by method: methods may come in any order,
// but SQL must be emitted in clause order.
type plan struct {
	has  methodSet
	args [numMethods]wire.Value // the args array of each present method
	name [numMethods][]byte     // the spelling used (Fields or Select)
}

// reset clears the methods that were present (cheaper than zeroing the
// whole plan on every request) so no request memory stays referenced.
func (p *plan) reset() {
	if p.has == 0 {
		return
	}
	for m := method(0); m < numMethods; m++ {
		if p.has.has(m) {
			p.args[m], p.name[m] = wire.Value{}, nil
		}
	}
	p.has = 0
}

// collect reads a command list into b.p. inTx refuses a nested Tx.
func (b *Builder) collect(cmds wire.Value, inTx bool) error {
	if cmds.Kind != wire.Array {
		return errorf("commands must be an array of {method, args} maps, got %s", cmds.Kind)
	}
	for i, c := range cmds.Items {
		if c.Kind != wire.Map {
			return errorf("command %d must be a map {method, args}, got %s", i+1, c.Kind)
		}
		var name, args wire.Value
		var haveName, haveArgs bool
		for j := 0; j < c.Len(); j++ {
			k := c.Key(j)
			if k.Kind != wire.Str {
				return errorf("command %d: keys must be strings, got %s; valid keys: method, args", i+1, k.Kind)
			}
			switch string(k.Bytes) {
			case "method":
				if haveName {
					return errorf("command %d: duplicate key \"method\"", i+1)
				}
				name, haveName = c.Val(j), true
			case "args":
				if haveArgs {
					return errorf("command %d: duplicate key \"args\"", i+1)
				}
				args, haveArgs = c.Val(j), true
			default:
				return errorf("command %d: unknown key %s; valid keys: method, args", i+1, q(k.Bytes))
			}
		}
		if !haveName {
			return errorf("command %d: missing key \"method\"", i+1)
		}
		if name.Kind != wire.Str {
			return errorf("command %d: method must be a string, got %s", i+1, name.Kind)
		}
		m, ok := lookupMethod(name.Bytes)
		if !ok {
			return errorf("unknown method %s; valid methods: %s", q(name.Bytes), validMethods)
		}
		if !haveArgs {
			return errorf("%s: missing key \"args\" (use [] for no arguments)", name.Bytes)
		}
		if args.Kind != wire.Array {
			return errorf("%s: args must be an array, got %s", name.Bytes, args.Kind)
		}
		if m == mTx && inTx {
			return errorf("Tx cannot be nested inside Tx")
		}
		if b.p.has.has(m) {
			if string(b.p.name[m]) != string(name.Bytes) {
				return errorf("method %s used twice (as %s and %s, which are the same method); each method may appear once", methodNames[m], b.p.name[m], name.Bytes)
			}
			return errorf("method %s used twice; each method may appear once per command list", name.Bytes)
		}
		b.p.has |= 1 << m
		b.p.args[m] = args
		b.p.name[m] = name.Bytes
	}
	return nil
}

// many is an unbounded argument count for nargs.
const many = int(^uint(0) >> 1)

// nargs checks the number of arguments of m.
func (b *Builder) nargs(m method, min, max int) error {
	n := b.p.args[m].Len()
	if n >= min && n <= max {
		return nil
	}
	name := b.p.name[m]
	switch {
	case min == max && min == 0:
		return errorf("%s: takes no arguments, got %d", name, n)
	case min == max:
		return errorf("%s: takes %d argument(s), got %d", name, min, n)
	case max == many:
		return errorf("%s: needs at least %d argument(s), got %d", name, min, n)
	default:
		return errorf("%s: takes %d to %d arguments, got %d", name, min, max, n)
	}
}
