; Folding: sections and multi-line lists.
(section) @fold
(list) @fold
