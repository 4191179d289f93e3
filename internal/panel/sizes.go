package panel

import "github.com/gasoline-mcp/gasoline/internal/memory"

// Sizes reports the panel's conversations (the daemon's memory report).
func (p *Panel) Sizes() []memory.Store { return p.chat.Sizes() }
