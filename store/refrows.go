package store

import "strconv"

// A reference's row is numbered by its source entity's seq and its place
// among the source's references (decision 0133): the references of an
// entity are the rows from refRowID(seq, 0) to refRowID(seq,
// MaxRefsPerEntity-1), found by the refs table's own key where an index by
// source took 94 MB of a kernel's index. Nine bits keep a kernel's row
// numbers (3 M entities) within the four bytes an index entry stores them
// in; the kernel's most referring entity has 425 references.
const refPlaceBits = 9

// MaxRefsPerEntity is how many references of one entity are stored; the
// rest (the tail of an entity that refers to more) are not.
const MaxRefsPerEntity = 1 << refPlaceBits

// refRowID is the row number of the reference in place place among those
// of the entity numbered seq.
func refRowID(seq int64, place int) int64 { return seq<<refPlaceBits | int64(place) }

// refAt is where the reference in row rowID is: its source's seq and its
// place.
func refAt(rowID int64) refPlace {
	return refPlace{seq: rowID >> refPlaceBits, place: int(rowID & (MaxRefsPerEntity - 1))}
}

// refsOfEntity is the SQL condition that the reference row r is one of the
// entity row e's: a range of r's rowids when e is known, e's row when r is.
// Both forms are given so that the planner can start from either table.
func refsOfEntity(e, r string) string {
	lo := e + ".seq * " + strconv.Itoa(MaxRefsPerEntity)
	return e + ".seq = " + r + ".rowid >> " + strconv.Itoa(refPlaceBits) +
		" AND " + r + ".rowid BETWEEN " + lo + " AND " + lo + " + " + strconv.Itoa(MaxRefsPerEntity-1)
}

// hitEntity joins the full-text hits h (rowid AS seq) to their entities e.
// CROSS JOIN keeps h the outer loop: entities keyed by seq let the planner
// carry a range of h's row numbers over to e and probe the full-text index
// once per entity instead, every probe a seek through each term's postings
// (163 ms against 9 ms for a kernel file's best declaration, BestInFile).
const hitEntity = "CROSS JOIN entities e ON e.seq = h.seq"
