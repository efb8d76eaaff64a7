package doris

import "strings"

// TaskStatus is the Status of a tasks("type" = "mv") row (Tasks.Status),
// as ParseTaskStatus reads it: trimmed and upper case, "" when the server
// wrote none. An unknown value is kept as data, never guessed at.
type TaskStatus string

// The task statuses (Tasks.Status). CANCELLED is the spelling some builds
// write for CANCELED: both are a canceled task.
const (
	TaskPending   TaskStatus = "PENDING"
	TaskRunning   TaskStatus = "RUNNING"
	TaskSuccess   TaskStatus = "SUCCESS"
	TaskFailed    TaskStatus = "FAILED"
	TaskCanceled  TaskStatus = "CANCELED"
	TaskCancelled TaskStatus = "CANCELLED"
)

// ParseTaskStatus is the one reading of a task's Status: every comparison
// goes through it, so that " running" and "Running" are RUNNING everywhere.
func ParseTaskStatus(s string) TaskStatus {
	return TaskStatus(strings.ToUpper(strings.TrimSpace(s)))
}

// Finished reports whether the task ended: succeeded, failed or canceled.
func (s TaskStatus) Finished() bool {
	switch s {
	case TaskSuccess, TaskFailed, TaskCanceled, TaskCancelled:
		return true
	}
	return false
}

// Due reports whether the task is waiting for a slot or holds one
// (PENDING or RUNNING): the refresh it stands for has not ended.
func (s TaskStatus) Due() bool { return s == TaskPending || s == TaskRunning }
