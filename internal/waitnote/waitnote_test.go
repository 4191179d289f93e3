package waitnote

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBeginSetsAndEndClears(t *testing.T) {
	var got []string
	ctx := With(t.Context(), "c_1", func(r string) { got = append(got, r) })
	assert.Equal(t, "c_1", ID(ctx))
	end := Begin(ctx, "tab 3: call c_0 acts on it")
	end()
	assert.Equal(t, []string{"tab 3: call c_0 acts on it", ""}, got)
}

func TestWithoutANoteNothingIsMarked(t *testing.T) {
	ctx := context.Background()
	assert.Equal(t, "", ID(ctx))
	Begin(ctx, "anything")() // no note: no panic, nothing to set
}
