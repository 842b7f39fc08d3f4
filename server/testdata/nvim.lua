-- Drives ctxls serve from a real Neovim (0.7 API: start_client,
-- buf_attach_client, buf_request_sync) and writes what it saw as JSON to
-- $OUT. Run by nvim_test.go.
vim.cmd('filetype on')
local root, bin, out = os.getenv('WS'), os.getenv('CTXLS_BIN'), os.getenv('OUT')
local result = { statuses = {} }
local ready = false

local function finish()
  local f = io.open(out, 'w')
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qa!')
end

local id = vim.lsp.start_client({
  name = 'ctxls',
  cmd = { bin, 'serve', '--stdio', '--log-file', root .. '/serve.log', '--log-level', 'debug', '--debounce', '0' },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = 'ws' } },
  flags = { debounce_text_changes = 0 },
  handlers = {
    ['ctxls/status'] = function(_, st)
      table.insert(result.statuses, st.state)
      if st.state == 'ready' and st.entities > 0 then ready = true end
    end,
  },
})
result.client = id ~= nil
vim.cmd('edit ' .. root .. '/auth/service.go')
vim.lsp.buf_attach_client(0, id)
result.initialized = vim.wait(20000, function()
  local c = vim.lsp.get_client_by_id(id)
  return c ~= nil and c.initialized
end, 20)
result.ready = vim.wait(30000, function() return ready end, 20)

local function request(method, params)
  local res = vim.lsp.buf_request_sync(0, method, params, 10000)
  if not res or not res[id] then return nil end
  if res[id].err then return { error = res[id].err.message } end
  return res[id].result
end

local uri = vim.uri_from_bufnr(0)
local hover = request('textDocument/hover', { textDocument = { uri = uri }, position = { line = 6, character = 24 } })
result.hover = hover and hover.contents and hover.contents.value or vim.NIL
local syms = request('textDocument/documentSymbol', { textDocument = { uri = uri } }) or {}
result.symbols = {}
for _, s in ipairs(syms) do
  table.insert(result.symbols, s.name)
  for _, c in ipairs(s.children or {}) do table.insert(result.symbols, s.name .. '/' .. c.name) end
end

-- Edit the buffer as a person would: Neovim sends an incremental didChange.
vim.api.nvim_buf_set_lines(0, 14, 14, false, {
  '',
  '// RevokeToken ends a session.',
  'func RevokeToken(tok string) bool { return tok != "" }',
})
local mdpath = root .. '/.ctxls/auto-context.md'
result.edited = vim.wait(15000, function()
  local f = io.open(mdpath, 'r')
  if not f then return false end
  local s = f:read('*a')
  f:close()
  result.autocontext = s
  return s:find('RevokeToken', 1, true) ~= nil
end, 20)
local after = request('textDocument/documentSymbol', { textDocument = { uri = uri } }) or {}
result.symbolsAfter = {}
for _, s in ipairs(after) do table.insert(result.symbolsAfter, s.name) end

vim.lsp.stop_client(id)
result.stopped = vim.wait(10000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
finish()
