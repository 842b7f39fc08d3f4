package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// examples are the Example sections of every command's help, by command
// path without "ctxls ". They live together so that they read as one set,
// and TestHelpHasExamples fails for a command that has none.
var examples = map[string]string{
	"": `  ctxls init --index                 # Claude Code hooks in .claude/settings.json, index built
  ctxls context "how are hooks deduplicated"
  ctxls doctor`,
	"index": `  ctxls index                        # build or update .ctxls/index.db in the current directory
  ctxls index --root ~/src/app --json
  ctxls index --check                # read every page first; set a damaged index aside and rebuild`,
	"stats": `  ctxls stats
  ctxls stats --sessions --limit 20  # how much of what the hooks injected was used
  ctxls stats --json`,
	"sessions": `  ctxls sessions
  ctxls sessions --limit 5 --json`,
	"sessions show": `  ctxls sessions show 3f2a9c1e-7d4b-4f7a-9a51-2c0e8b6d1f00
  ctxls sessions show 3f2a9c1e-7d4b-4f7a-9a51-2c0e8b6d1f00 --json`,
	"symbols": `  ctxls symbols internal/server/server.go
  ctxls symbols --json main.go`,
	"query": `  ctxls query "where are refresh tokens validated"
  ctxls query --explain --limit 5 "retry with backoff"
  git diff | ctxls query --json -`,
	"context": `  ctxls context "why does the login handler reject valid passwords"
  ctxls context --max-tokens 2000 --active-file auth/handler.go "add rate limiting"
  ctxls context --session 3f2a9c1e-7d4b-4f7a-9a51-2c0e8b6d1f00 "and the tests?"`,
	"hook": `  echo '{"session_id":"s1","cwd":"'"$PWD"'","prompt":"fix Login"}' | ctxls hook user-prompt-submit
  # Claude Code runs it from the settings 'ctxls init' writes; you rarely do.`,
	"daemon": `  ctxls daemon list                  # the daemons running for this user
  ctxls daemon stop                  # stop the current workspace's daemon
  ctxls daemon stop --all`,
	"daemon list": `  ctxls daemon list
  ctxls daemon list --json`,
	"daemon stop": `  ctxls daemon stop
  ctxls daemon stop --root ~/src/app
  ctxls daemon stop --all`,
	"init": `  ctxls init --index                 # hooks in .claude/settings.json (commit it), index built
  ctxls init --mcp --no-index        # also register ctxls mcp in .mcp.json
  ctxls init --local                 # only for you: .claude/settings.local.json, this machine's path
  ctxls init --uninstall             # remove what init added`,
	"doctor": `  ctxls doctor
  ctxls doctor --root ~/src/app`,
	"mcp": `  claude mcp add --scope user ctxls -- ctxls mcp
  ctxls mcp --root ~/src/app --log-level debug`,
	"sources": `  ctxls sources
  ctxls sources --file internal/auth/login.go "add a password check"
  ctxls sources --json`,
	"serve": `  ctxls serve                        # an editor starts it and talks LSP over stdin/stdout
  ctxls serve --log-file /tmp/ctxls.log --debounce 300ms`,
	"memory": `  ctxls memory write --type gotcha --title "Tokens are not revocable" --tags auth --content "..."
  ctxls memory search "token revocation"
  ctxls memory health`,
	"memory write": `  ctxls memory write --type decision --title "Sessions live in Redis" --tags auth,storage --content "Because ..."
  git log -1 --format=%B | ctxls memory write --type learning --title "Flaky CI cause" --tags ci --stdin
  ctxls memory write --type gotcha --title "Migrations lock the table" --tags db --files 'db/migrations/**' --edit`,
	"memory show": `  ctxls memory show gotcha-tokens-are-not-revocable
  ctxls memory show gotcha-tokens-are-not-revocable --json`,
	"memory list": `  ctxls memory list
  ctxls memory list --type gotcha,decision --tags auth --json`,
	"memory search": `  ctxls memory search "token revocation"
  ctxls memory search --type gotcha --limit 3 --semantic "slow migrations"`,
	"memory update": `  ctxls memory update gotcha-tokens-are-not-revocable --tags auth,security
  ctxls memory update gotcha-tokens-are-not-revocable --stdin < notes.md`,
	"memory delete": `  ctxls memory delete learning-flaky-ci-cause`,
	"memory link": `  ctxls memory link decision-sessions-live-in-redis gotcha-tokens-are-not-revocable
  ctxls memory link decision-a decision-b --label builds-on`,
	"memory unlink": `  ctxls memory unlink decision-sessions-live-in-redis gotcha-tokens-are-not-revocable`,
	"memory graph": `  ctxls memory graph
  ctxls memory graph decision-sessions-live-in-redis --json`,
	"memory health": `  ctxls memory health
  ctxls memory health --scope project --json`,
	"memory rebuild": `  ctxls memory rebuild
  ctxls memory rebuild --scope global`,
	"memory import": `  ctxls memory import ~/.claude/memory-plugin --scope project
  ctxls memory import .claude/memory         # convert a scope's own directory in place
  ctxls memory import project --scope enterprise   # the project scope into the team's PostgreSQL`,
	"memory export": `  ctxls memory export --scope enterprise ./team-memories
  ctxls memory export --scope enterprise --as project .claude/memory`,
	"memory promote": `  ctxls memory promote learning-flaky-ci-cause decision`,
	"memory demote":  `  ctxls memory demote decision-sessions-live-in-redis learning`,
	"memory edges": `  ctxls memory edges decision-sessions-live-in-redis
  ctxls memory edges decision-sessions-live-in-redis --json`,
	"memory impact": `  ctxls memory impact decision-sessions-live-in-redis
  ctxls memory impact decision-sessions-live-in-redis --depth 2`,
	"memory move":   `  ctxls memory move learning-flaky-ci-cause global`,
	"memory rename": `  ctxls memory rename learning-flaky-ci-cause learning-ci-flakes-on-cold-cache`,
	"memory tag":    `  ctxls memory tag gotcha-tokens-are-not-revocable security auth`,
	"memory untag":  `  ctxls memory untag gotcha-tokens-are-not-revocable auth`,
	"memory think": `  ctxls memory think create "Should sessions move out of Redis?"
  ctxls memory think add "Redis is a single point of failure today"
  ctxls memory think conclude "Keep Redis, add a replica" --promote decision`,
	"memory think create": `  ctxls memory think create "Should sessions move out of Redis?"
  ctxls memory think create --ref decision-sessions-live-in-redis "Revisit the session store"`,
	"memory think add": `  ctxls memory think add "Redis is a single point of failure today"
  ctxls memory think add --call claude "What would moving sessions to Postgres cost?"`,
	"memory think counter": `  ctxls memory think counter "A replica removes the single point of failure"`,
	"memory think branch":  `  ctxls memory think branch "What if sessions were stateless tokens instead?"`,
	"memory think list": `  ctxls memory think list
  ctxls memory think list --scope global`,
	"memory think show": `  ctxls memory think show
  ctxls memory think show --json`,
	"memory think use": `  ctxls memory think list             # the ids
  ctxls memory think use <ID>`,
	"memory think conclude": `  ctxls memory think conclude "Keep Redis, add a replica"
  ctxls memory think conclude "Keep Redis, add a replica" --promote decision --tags storage`,
	"memory think delete":  `  ctxls memory think delete <ID>`,
	"memory think catalog": `  ctxls memory think catalog           # the agents and output styles --agent, --style and --auto may use`,
	"help":                 `  ctxls help memory write             # the same as ctxls memory write --help`,
	"completion": `  ctxls completion bash > ~/.local/share/bash-completion/completions/ctxls
  ctxls completion zsh > "${fpath[1]}/_ctxls"`,
	"completion bash": `  source <(ctxls completion bash)     # in this shell only
  ctxls completion bash > ~/.local/share/bash-completion/completions/ctxls`,
	"completion zsh":        `  ctxls completion zsh > "${fpath[1]}/_ctxls"   # then start a new shell`,
	"completion fish":       `  ctxls completion fish > ~/.config/fish/completions/ctxls.fish`,
	"completion powershell": `  ctxls completion powershell | Out-String | Invoke-Expression`,
}

// setExamples gives each command of the tree under c its example.
func setExamples(c *cobra.Command) {
	path := strings.TrimPrefix(strings.TrimPrefix(c.CommandPath(), "ctxls"), " ")
	if ex, ok := examples[path]; ok && c.Example == "" {
		c.Example = ex
	}
	for _, sub := range c.Commands() {
		setExamples(sub)
	}
}
