// Starts `arbiter lsp` for rule files (.rules). Highlighting comes from the
// TextMate grammar in syntaxes/; everything else from the server.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("arbiter").get("path") || "arbiter";
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "arbiter",
    "arbiter",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "arbiter" }, { scheme: "untitled", language: "arbiter" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
