(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (identifier) @name) @def.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @def.method
; A class field that holds a function is a method: handleClick = () => {}.
(field_definition property: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function) (function_expression)]) @def.method
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function)))
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function))
; CommonJS and prototype methods: res.send = function send() {}, exports.x =
; () => {}, Axios.prototype.request = function () {}, at the top level.
(program (expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @receiver property: (property_identifier) @_proto) property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @def.method) (#eq? @_proto "prototype"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @receiver property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @def.method))
(program (expression_statement (assignment_expression left: (member_expression object: (member_expression property: (property_identifier) @_last) @receiver property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @def.method) (#not-eq? @_last "prototype"))
;; Methods of an object literal at the top level, as CommonJS modules, prototypes
;; and class factories spell them, on the name the object is given:
;; X.prototype = { open: function () {} }, var View = Base.extend({ render:
;; function () {} }), exports.Request = Class({...}), module.exports = {...},
;; export default {...}. Inside a function an object's functions are
;; callbacks and options, not declarations.
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @receiver property: (property_identifier) @_proto) right: (object (pair key: (property_identifier) @name value: [(function_expression) (arrow_function)]) @def.method)) (#eq? @_proto "prototype")))
(program (expression_statement (assignment_expression left: (member_expression property: (property_identifier) @receiver) right: (object (pair key: (property_identifier) @name value: [(function_expression) (arrow_function)]) @def.method)) (#not-eq? @receiver "prototype")))
(program (expression_statement (assignment_expression left: (identifier) @receiver right: (object (pair key: (property_identifier) @name value: [(function_expression) (arrow_function)]) @def.method))))
(program (expression_statement (assignment_expression left: (member_expression property: (property_identifier) @receiver) right: (call_expression arguments: (arguments (object (pair key: (property_identifier) @name value: (function_expression)) @def.method))))))
(program (expression_statement (assignment_expression left: (identifier) @receiver right: (call_expression arguments: (arguments (object (pair key: (property_identifier) @name value: (function_expression)) @def.method))))))
(program (_ (variable_declarator name: (identifier) @receiver value: (object (pair key: (property_identifier) @name value: [(function_expression) (arrow_function)]) @def.method))))
(program (_ (variable_declarator name: (identifier) @receiver value: (call_expression arguments: (arguments (object (pair key: (property_identifier) @name value: (function_expression)) @def.method))))))
(program (expression_statement (call_expression arguments: (arguments (object (pair key: (property_identifier) @name value: (function_expression)) @def.method)))))
(program (export_statement value: (object (pair key: (property_identifier) @name value: [(function_expression) (arrow_function)]) @def.method)))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable)))

(class_heritage (identifier) @name) @ref.extends
(class_heritage (member_expression object: (_) @qualifier property: (property_identifier) @name)) @ref.extends
(call_expression function: (identifier) @name) @ref.calls
(call_expression function: (member_expression object: (_) @qualifier property: [(property_identifier) (private_property_identifier)] @name)) @ref.calls
(new_expression constructor: (identifier) @name) @ref.calls

(import_statement source: (string (string_fragment) @path)) @import
(call_expression function: (identifier) @_fn arguments: (arguments . (string (string_fragment) @path)) (#eq? @_fn "require")) @import
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @name !alias))) source: (string (string_fragment) @path)) @import
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @name alias: (identifier) @alias))) source: (string (string_fragment) @path)) @import
(import_statement (import_clause (namespace_import (identifier) @alias)) source: (string (string_fragment) @path)) @import
(import_statement (import_clause . (identifier) @default) source: (string (string_fragment) @path)) @import
(variable_declarator name: (identifier) @alias value: (call_expression function: (identifier) @_fn arguments: (arguments . (string (string_fragment) @path))) (#eq? @_fn "require")) @import
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name) value: (call_expression function: (identifier) @_fn arguments: (arguments . (string (string_fragment) @path))) (#eq? @_fn "require")) @import
(variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @name value: (identifier) @alias)) value: (call_expression function: (identifier) @_fn arguments: (arguments . (string (string_fragment) @path))) (#eq? @_fn "require")) @import
(export_statement (export_clause (export_specifier name: (identifier) @name !alias)) source: (string (string_fragment) @path)) @import
(export_statement (export_clause (export_specifier name: (identifier) @name alias: (identifier) @alias)) source: (string (string_fragment) @path)) @import
(export_statement "*" @name source: (string (string_fragment) @path)) @import
