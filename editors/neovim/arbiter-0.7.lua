-- arbiter rule files in Neovim 0.7 to 0.10: put this in ~/.config/nvim/plugin/arbiter.lua
-- (Debian 12's Neovim is 0.7: no vim.lsp.start, no vim.lsp.config.)
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
vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
  pattern = "*.rules",
  callback = function(args)
    vim.api.nvim_buf_set_option(args.buf, "filetype", language(args.buf))
  end,
})
vim.api.nvim_create_autocmd("FileType", {
  pattern = "arbiter",
  callback = function(args)
    vim.api.nvim_buf_set_option(args.buf, "commentstring", "# %s")
    local client = vim.lsp.start_client({ name = "arbiter", cmd = { "arbiter", "lsp" } })
    if client then vim.lsp.buf_attach_client(args.buf, client) end
  end,
})
