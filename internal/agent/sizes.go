package agent

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports the panel's conversations and their events (the daemon's
// memory report).
func (c *Chat) Sizes() []memory.Store {
	c.mu.Lock()
	convs := make([]*Conversation, 0, len(c.convs))
	for _, conv := range c.convs {
		convs = append(convs, conv)
	}
	c.mu.Unlock()
	events := 0
	for _, conv := range convs {
		conv.mu.Lock()
		events += len(conv.events)
		conv.mu.Unlock()
	}
	return []memory.Store{
		{Name: "agent.conversations", Len: len(convs), Cap: c.cfg.MaxConversations},
		{Name: "agent.events", Len: events, Cap: c.cfg.MaxEvents * c.cfg.MaxConversations},
	}
}
