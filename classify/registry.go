package classify

// Cause describes a mechanism readygap names: what the JSON contract calls
// it, what a reader calls it, and the flavours it comes in. Every rule
// declares its own; the titles of reports, the help texts and the README's
// cause table all come from here.
type Cause struct {
	// ID is the cause as the JSON contract writes it (snake_case).
	ID string
	// Name is what a reader calls it, for titles.
	Name string
	// Description says in one line what happened.
	Description string
	// Signature says in one line what the logs show.
	Signature string
	// Variants are the flavours the rule tells apart.
	Variants []Variant
	// Checks are the rule's static checks, run on objects before a deploy.
	Checks []StaticCheck
}

// Variant is one flavour of a cause.
type Variant struct {
	// ID is the variant as the JSON contract writes it.
	ID string
	// Name is what a reader calls it.
	Name string
}

// VariantName returns the reader's name of variant id, or id itself.
func (c Cause) VariantName(id string) string {
	for _, v := range c.Variants {
		if v.ID == id {
			return v.Name
		}
	}
	return id
}

// Causes lists every cause readygap names: the rules' in registry order,
// then unknown.
func Causes() []Cause {
	out := make([]Cause, 0, len(Rules)+1)
	for _, r := range Rules {
		out = append(out, r.Cause())
	}
	return append(out, unknownCause)
}

// CauseByID returns the cause with the given id; ok is false for an id no
// rule declares.
func CauseByID(id string) (c Cause, ok bool) {
	for _, c := range Causes() {
		if c.ID == id {
			return c, true
		}
	}
	return Cause{}, false
}
