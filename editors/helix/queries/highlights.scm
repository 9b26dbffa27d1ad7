; Highlighting of arbiter rule files, in Helix's scopes.

(comment) @comment

(section kind: (word) @type)
(section label: (string) @label)
"replace" @keyword

(property key: (key) @variable.other.member)

(call function: (word) @function)
(field_expression field: (word) @variable.other.member)

(number) @constant.numeric
(string) @string
(word) @variable

["and" "or" "not" "in"] @keyword.operator
["==" "!=" "<=" ">=" "<" ">" "+" "-" "*" "/" "%" ".."] @operator
["{" "}" "(" ")" "[" "]"] @punctuation.bracket
["," "."] @punctuation.delimiter
