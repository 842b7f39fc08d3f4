package team

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Listen tells fn about every committed change to the project's memories
// (LISTEN on Channel) until ctx ends or the connection fails; it returns
// that error, and the caller decides when to listen again. ready, if not
// nil, is called once the LISTEN is in place: changes committed before
// then are not reported, so a caller refreshes after ready.
func Listen(ctx context.Context, dsn, project string, ready func(), fn func(Change)) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("enterprise memory: the DSN is not a valid PostgreSQL connection string: %s", dsnReason(err))
	}
	cfg.RuntimeParams["application_name"] = "ctxls-listen"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return classify(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{Channel}.Sanitize()); err != nil {
		return classify(err)
	}
	if ready != nil {
		ready()
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return classify(err)
		}
		var c Change
		if json.Unmarshal([]byte(n.Payload), &c) != nil || c.Project != project {
			continue
		}
		fn(c)
	}
}
