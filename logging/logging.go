// Package logging builds the zap loggers of ctxls's long-running and hook
// processes. Logs never go to stdout: in serve, mcp and hook, stdout is the
// protocol.
package logging

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// File returns a logger appending JSON lines to path at level ("debug",
// "info", "warn", "error"). An empty path logs to stderr.
func File(path, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("log level %q: %w", level, err)
	}
	var ws zapcore.WriteSyncer = zapcore.Lock(os.Stderr)
	if path != "" {
		// Private whatever the umask: the log names files and quotes
		// errors about the workspace (it is .ctxls/ctxls.log, beside the
		// index, DirPerm and FilePerm in package store).
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("log file %s: %w", path, err)
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("log file %s: %w", path, err)
		}
		// Each entry is written with one write(2) as it is logged, so
		// Sync has nothing to flush; zapcore.AddSync would make it an
		// fsync, which cost every hook process a millisecond or more
		// (more on a busy disk) to protect a diagnostic log against power
		// loss.
		ws = zapcore.AddSync(struct{ io.Writer }{f})
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), ws, lvl)
	return zap.New(core), nil
}
