package contract

import (
	"strings"
	"testing"
)

func TestHandlerName(t *testing.T) {
	if got := HandlerName("space"); got != "erasure-handler-space" {
		t.Errorf("HandlerName(space) = %s", got)
	}
	long := strings.Repeat("a", 64)
	got := HandlerName(long)
	if len(got) != 64 || !strings.HasPrefix(got, "erasure-handler-") || got == HandlerName(strings.Repeat("a", 63)+"b") {
		t.Errorf("HandlerName of a 64-character name = %q (%d): want 64 characters, distinct per name", got, len(got))
	}
}

func TestQueueName(t *testing.T) {
	if got := QueueName("space"); got != "erasure-requests-space" {
		t.Errorf("QueueName(space) = %s", got)
	}
	long := strings.Repeat("a", 64)
	got := QueueName(long)
	if len(got) != 80 || !strings.HasPrefix(got, "erasure-requests-") || got == QueueName(strings.Repeat("a", 63)+"b") {
		t.Errorf("QueueName of a 64-character name = %q (%d): want 80 characters, distinct per name", got, len(got))
	}
}
