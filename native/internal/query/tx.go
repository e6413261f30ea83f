package query

import "dalkit/native/internal/wire"

// tx builds Tx([[command, ...], ...]): one write statement per command list,
// all run by the engine in one transaction. Reads are refused because a Tx
// response carries only rows-affected and last-insert-id.
func (b *Builder) tx() error {
	if other := b.p.has &^ setOf(mTx); other != 0 {
		return errorf("a request with Tx contains nothing else, found %s; put each statement in its own Tx command list", other.names())
	}
	lists := b.p.args[mTx]
	if lists.Len() == 0 {
		return errorf("Tx: needs at least one command list, got none")
	}
	b.req.Tx = true
	for i, list := range lists.Items {
		if list.Kind != wire.Array {
			return errorf("Tx: argument %d must be a command list (an array of {method, args}), got %s", i+1, list.Kind)
		}
		b.p.reset()
		if err := b.collect(list, true); err != nil {
			return prefix(err, "Tx: command list %d: ", i+1)
		}
		if !b.p.has.has(mInsert) && !b.p.has.has(mSet) && !b.p.has.has(mDelete) {
			return errorf("Tx: command list %d is a SELECT; only Insert, Set and Delete statements are allowed in Tx", i+1)
		}
		if _, err := b.statement(); err != nil {
			return prefix(err, "Tx: command list %d: ", i+1)
		}
	}
	return nil
}
