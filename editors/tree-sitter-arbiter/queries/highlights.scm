; Highlighting of arbiter rule files (the captures every editor knows).

(comment) @comment

(section kind: (word) @type)
(section label: (string) @label)
"replace" @keyword

(property key: (key) @property)

(call function: (word) @function)
(field_expression field: (word) @property)

(number) @number
(string) @string
(word) @variable

["and" "or" "not" "in"] @keyword.operator
["==" "!=" "<=" ">=" "<" ">" "+" "-" "*" "/" "%" ".."] @operator
["{" "}" "(" ")" "[" "]"] @punctuation.bracket
["," "."] @punctuation.delimiter
