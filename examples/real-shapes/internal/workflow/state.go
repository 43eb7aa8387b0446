package workflow

import "fmt"

type State int

const (
	StatePending State = iota
	StateRunning
	StateWaiting
	StateDone
	StateFailed
	stateCount
)

func (s State) String() string {
	switch s {
	case StatePending:
		return "pending"
	case StateRunning:
		return "running"
	case StateWaiting:
		return "waiting"
	case StateDone:
		return "done"
	case StateFailed:
		return "failed"
	case stateCount:
		return fmt.Sprintf("invalid state %d", int(s))
	}
	return "unknown"
}
