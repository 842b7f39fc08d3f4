package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeResourceNotFound is the code the SDK gives a resource-not-found
// error: -32602 (invalid params) since v1.7.0, after the specification's
// SEP-2164, or -32002, as before, with MCPGODEBUG=customresnotfounderrcode=1.
// Taken from the SDK so that both kinds of not-found answer alike.
var codeResourceNotFound = mcp.ResourceNotFoundError("").(*jsonrpc.Error).Code

// resourceNotFound is mcp.ResourceNotFoundError with its data encoded by
// encoding/json. The SDK formats the URI with %q, Go syntax that is not
// JSON for control characters (`\x01`); the response then cannot be
// encoded, and the SDK ends the session instead of answering.
func resourceNotFound(uri string) error {
	data, err := json.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
	if err != nil {
		data = nil // cannot happen: a string always encodes
	}
	return &jsonrpc.Error{Code: codeResourceNotFound, Message: "Resource not found", Data: data}
}

// validErrors is a receiving middleware that makes every error answer
// encodable. Errors the server's handlers return are built well, but the
// SDK builds some itself: resources/read of a URI that matches no resource
// or template answers mcp.ResourceNotFoundError before any handler runs.
// An error whose data is not JSON is rebuilt: a resource-not-found error
// with the request's URI, any other without its data.
func validErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		// Only a *jsonrpc.Error itself carries data to the wire: the SDK
		// keeps just the code of one wrapped in another error.
		we, ok := err.(*jsonrpc.Error)
		if !ok || we.Data == nil || json.Valid(we.Data) {
			return res, err
		}
		if uri, ok := requestURI(req); ok && we.Code == codeResourceNotFound && we.Message == "Resource not found" {
			return res, resourceNotFound(uri)
		}
		return res, &jsonrpc.Error{Code: we.Code, Message: we.Message}
	}
}

// requestURI is the resource URI a request names, if it names one.
func requestURI(req mcp.Request) (string, bool) {
	switch r := req.(type) {
	case *mcp.ReadResourceRequest:
		if r.Params != nil {
			return r.Params.URI, true
		}
	case *mcp.SubscribeRequest:
		if r.Params != nil {
			return r.Params.URI, true
		}
	}
	return "", false
}
