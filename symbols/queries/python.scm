(class_definition name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @def.class
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name
  body: (block . (expression_statement (string) @doc))) @def.function
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.variable))
(module (type_alias_statement . (type (identifier) @name)) @def.type)

(class_definition superclasses: (argument_list (identifier) @name)) @ref.extends
(class_definition superclasses: (argument_list (attribute object: (_) @qualifier attribute: (identifier) @name))) @ref.extends
(call function: (identifier) @name) @ref.calls
(call function: (attribute object: (_) @qualifier attribute: (identifier) @name)) @ref.calls
(type (identifier) @name) @ref.references

(import_statement name: (dotted_name) @path) @import
(import_statement name: (aliased_import name: (dotted_name) @path alias: (identifier) @alias)) @import
(import_from_statement module_name: (_) @path name: (dotted_name) @name) @import
(import_from_statement module_name: (_) @path name: (aliased_import name: (dotted_name) @name alias: (identifier) @alias)) @import
(import_from_statement module_name: (_) @path (wildcard_import) @name) @import
