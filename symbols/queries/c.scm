(function_definition declarator: (function_declarator declarator: (identifier) @name)) @def.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @def.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @def.function
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(union_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(type_definition declarator: (type_identifier) @name) @def.type
(preproc_function_def name: (identifier) @name) @def.function
(preproc_def name: (identifier) @name) @def.constant
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @def.variable)

(call_expression function: (identifier) @name) @ref.calls
(call_expression function: (field_expression argument: (_) @qualifier field: (field_identifier) @name)) @ref.calls
(type_identifier) @name @ref.references

(preproc_include path: (_) @path) @import

; A loop macro without braces, misread as a function declared in a function body (symbols/misread.go).
(function_definition type: (macro_type_specifier name: (identifier) @name)) @misread
(declaration type: (macro_type_specifier name: (identifier) @name) declarator: (function_declarator)) @misread
