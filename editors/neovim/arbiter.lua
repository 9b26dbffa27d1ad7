-- arbiter rule files in Neovim 0.11+: put this in ~/.config/nvim/plugin/arbiter.lua
vim.filetype.add({ extension = { rules = "arbiter" } })
vim.lsp.config("arbiter", {
  cmd = { "arbiter", "lsp" },
  filetypes = { "arbiter" },
  root_markers = { "rules", ".git" },
})
vim.lsp.enable("arbiter")
vim.api.nvim_create_autocmd("FileType", {
  pattern = "arbiter",
  callback = function() vim.bo.commentstring = "# %s" end,
})
