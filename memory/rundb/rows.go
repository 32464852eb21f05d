package rundb

import (
	"context"
	"fmt"
)

// rowScanner is a query's current row (*sql.Rows).
type rowScanner interface{ Scan(dest ...any) error }

// queryAll runs query and reads each of its rows with read, in order;
// every error is wrapped with what (the operation, as said to a person).
func queryAll[T any](ctx context.Context, q querier, what string, read func(rowScanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := read(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// scanOne reads a row of one column.
func scanOne[T any](row rowScanner) (T, error) {
	var v T
	err := row.Scan(&v)
	return v, err
}
