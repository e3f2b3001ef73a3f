package live

import "testing"

// TestBigQueryCost pins the list price: $6.25 per TiB, rounded up to the
// MB, at least 10 MB a table.
func TestBigQueryCost(t *testing.T) {
	for _, tc := range []struct {
		bytes  int64
		tables int
		want   float64
	}{
		{1 << 40, 1, 6.25},
		{0, 1, 6.25 * 10 / (1 << 20)},
		{0, 2, 6.25 * 20 / (1 << 20)},
		{(11 << 20) + 1, 1, 6.25 * 12 / (1 << 20)},
	} {
		if got := BigQueryCost(tc.bytes, tc.tables); got != tc.want {
			t.Errorf("BigQueryCost(%d, %d) = %v; want %v", tc.bytes, tc.tables, got, tc.want)
		}
	}
}
