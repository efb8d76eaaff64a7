package exporter

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// RoundTimeoutError is the cause of a round's context when the round ran
// out of its --round-timeout: the error a failed round reports names the
// bound and the flag that sets it, not a bare "context deadline exceeded".
type RoundTimeoutError struct{ Timeout time.Duration }

func (e *RoundTimeoutError) Error() string {
	return fmt.Sprintf("the round did not finish within --round-timeout %s (the default is the --interval; each network hop has --timeout)", e.Timeout)
}

// Is makes errors.Is(err, context.DeadlineExceeded) hold for it too.
func (e *RoundTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

func roundTimeout(d time.Duration) error { return &RoundTimeoutError{Timeout: d} }

// nameRoundTimeout returns err naming the round's bound when the round's
// context ran out of time, else err unchanged.
func nameRoundTimeout(rctx context.Context, err error) error {
	if err == nil || rctx.Err() == nil {
		return err
	}
	var rt *RoundTimeoutError
	if !errors.As(context.Cause(rctx), &rt) || errors.As(err, &rt) {
		return err
	}
	return fmt.Errorf("%w: %w", rt, err)
}
