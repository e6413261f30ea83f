package query

import "dalkit/native/internal/wire"

// validKeys lists the envelope's keys for error messages.
const validKeys = "id, db, commands, codes"

// build reads the envelope {id, db, commands[, codes]} and dispatches to a
// single statement or to Tx.
func (b *Builder) build(req wire.Value) error {
	if req.Kind != wire.Map {
		return errorf("request must be a map {id, db, commands}, got %s", req.Kind)
	}
	var cmds wire.Value
	var seen uint8 // bit 0 id, 1 db, 2 commands, 3 codes
	for i := 0; i < req.Len(); i++ {
		k, v := req.Key(i), req.Val(i)
		if k.Kind != wire.Str {
			return errorf("request keys must be strings, got %s; valid keys: %s", k.Kind, validKeys)
		}
		var bit uint8
		switch string(k.Bytes) {
		case "id":
			bit = 1
			switch {
			case v.Kind == wire.Int && v.Int() >= 0:
				b.req.ID = uint64(v.Int())
				b.idPos = v.Pos()
			case v.Kind == wire.Int || v.Kind == wire.Uint:
				// The response echoes id; 2^63-1 keeps it exact in every binding.
				return errorf("id must be an integer in 0 .. 2^63-1")
			default:
				return errorf("id must be a non-negative integer, got %s", v.Kind)
			}
		case "db":
			bit = 2
			if v.Kind != wire.Str || len(v.Bytes) == 0 {
				if v.Kind == wire.Str {
					return errorf("db must be a non-empty string")
				}
				return errorf("db must be a string (a database file name), got %s", v.Kind)
			}
			b.req.DB = v.Bytes
			b.dbPos = v.Pos()
		case "commands":
			bit = 4
			if v.Kind != wire.Array {
				return errorf("commands must be an array of {method, args} maps, got %s", v.Kind)
			}
			cmds = v
		case "codes":
			bit = 8
			if v.Kind != wire.Bool {
				return errorf("codes must be a boolean, got %s", v.Kind)
			}
			b.req.Codes = v.Bool()
		default:
			return errorf("unknown key %s in request; valid keys: %s", q(k.Bytes), validKeys)
		}
		if seen&bit != 0 {
			return errorf("duplicate key %s in request", q(k.Bytes))
		}
		seen |= bit
	}
	switch {
	case seen&1 == 0:
		return errorf("request is missing key \"id\"")
	case seen&2 == 0:
		return errorf("request is missing key \"db\"")
	case seen&4 == 0:
		return errorf("request is missing key \"commands\"")
	}
	if err := b.collect(cmds, false); err != nil {
		return err
	}
	if b.p.has.has(mTx) {
		return b.tx()
	}
	_, err := b.statement()
	return err
}

// statement builds the command list in b.p as one statement.
func (b *Builder) statement() (Kind, error) {
	p := &b.p
	kind := Select
	var writes methodSet
	for _, w := range [...]struct {
		m method
		k Kind
	}{{mInsert, Insert}, {mSet, Update}, {mDelete, Delete}} {
		if p.has.has(w.m) {
			kind = w.k
			writes |= 1 << w.m
		}
	}
	if writes&(writes-1) != 0 { // more than one bit
		return 0, errorf("%s cannot be combined: a command list is one statement", writes.names())
	}
	if extra := p.has &^ allowed[kind]; extra != 0 {
		return 0, b.misplaced(kind, extra)
	}
	if !p.has.has(mIn) {
		return 0, errorf("missing In: every command list needs In([table]) to name its table")
	}
	sql0 := b.begin()
	var err error
	switch kind {
	case Select:
		err = b.selectStmt()
	case Insert:
		err = b.insertStmt()
	case Update:
		err = b.updateStmt()
	case Delete:
		err = b.deleteStmt()
	}
	if err != nil {
		return 0, err
	}
	b.end(kind, sql0)
	return kind, nil
}

// misplaced explains a method that does not belong to the statement kind.
func (b *Builder) misplaced(kind Kind, extra methodSet) error {
	var m method
	for m = 0; !extra.has(m); m++ {
	}
	name := b.p.name[m]
	switch {
	case kind == Select && (m == mOnConflict || m == mDoUpdate || m == mDoNothing):
		return errorf("%s needs Insert", name)
	case kind == Insert && m == mFind:
		return errorf("Find cannot be used with Insert (an INSERT has no WHERE); for an upsert use OnConflict with DoUpdate or DoNothing")
	}
	return errorf("%s cannot be used with %s; valid methods with %s: %s", name, writerName(kind), writerName(kind), allowed[kind].names())
}

func writerName(k Kind) string {
	switch k {
	case Insert:
		return "Insert"
	case Update:
		return "Set"
	case Delete:
		return "Delete"
	}
	return "a SELECT"
}
