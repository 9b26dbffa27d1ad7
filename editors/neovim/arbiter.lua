-- arbiter rule files in Neovim 0.11+: put this in ~/.config/nvim/plugin/arbiter.lua
-- `.rules` is also udev's and Snort's: a file is a rule file unless its first
-- line that is neither blank nor a comment is one of theirs.
local actions = { alert = 1, log = 1, pass = 1, drop = 1, reject = 1, sdrop = 1, activate = 1, dynamic = 1 }
local protocols = { tcp = 1, udp = 1, icmp = 1, ip = 1, http = 1, tls = 1, dns = 1, smb = 1, ftp = 1, any = 1 }
-- The language of a `.rules` buffer (as `arbiter lsp` tells it: src/lsp/detect.rs).
local function language(bufnr)
  for _, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, 200, false)) do
    local l = vim.trim(line)
    if l ~= "" and l:sub(1, 1) ~= "#" then
      if l:match("^%u[%u%d_]*%s*[=!+:%-]?=") or l:match("^%u[%u%d_]*%b{}%s*[=!+:%-]?=") then return "udevrules" end
      local first, second = l:match("^(%S+)%s+(%S+)")
      if first and actions[first] and protocols[second] then return "hog" end
      if first and (first == "var" or first == "ipvar" or first == "portvar") and second:match("^[%u_]+$") then
        return "hog"
      end
      return "arbiter"
    end
  end
  return "arbiter"
end
vim.filetype.add({ extension = { rules = function(_, bufnr) return language(bufnr) end } })
vim.lsp.config("arbiter", {
  cmd = { "arbiter", "lsp" },
  filetypes = { "arbiter" },
  root_markers = { "rules", ".git" },
})
vim.lsp.enable("arbiter")
vim.api.nvim_create_autocmd("FileType", {
  pattern = "arbiter",
  callback = function(args)
    vim.bo[args.buf].commentstring = "# %s"
    -- Highlighting from the tree-sitter grammar, once its parser is built
    -- (docs/editors.md): ~/.local/share/nvim/site/parser/arbiter.so.
    pcall(vim.treesitter.start, args.buf, "arbiter")
  end,
})
