// A small Go workspace the protocol and end-to-end tests open.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The files of the workspace. */
export const files: Record<string, string> = {
	"go.mod": "module example.com/shop\n\ngo 1.22\n",
	"auth/token.go": `package auth

import "time"

// Token is a signed session token.
type Token struct {
	Subject string
	Expires time.Time
}

// IssueToken signs a token for subject that expires after ttl.
func IssueToken(subject string, ttl time.Duration) Token {
	return Token{Subject: subject, Expires: time.Now().Add(ttl)}
}

// Valid reports whether the token has not expired.
func (t Token) Valid(now time.Time) bool {
	return now.Before(t.Expires)
}
`,
	"auth/login.go": `package auth

import "time"

// Login checks a password and issues a token for the user.
func Login(user, password string) (Token, bool) {
	if !checkPassword(user, password) {
		return Token{}, false
	}
	return IssueToken(user, time.Hour), true
}

func checkPassword(user, password string) bool {
	return user != "" && len(password) >= 8
}
`,
	"main.go": `package main

import (
	"fmt"

	"example.com/shop/auth"
)

func main() {
	tok, ok := auth.Login("ada", "correct horse")
	fmt.Println(tok.Subject, ok)
}
`,
};

/** workspace writes the files into a new temporary directory and returns its path. */
export function workspace(prefix: string): string {
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
	for (const [rel, text] of Object.entries(files)) {
		const file = path.join(root, rel);
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.writeFileSync(file, text);
	}
	return root;
}

/** waitFor polls until check returns a value (not undefined) or the timeout passes. */
export async function waitFor<T>(what: string, timeoutMs: number, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const v = await check();
		if (v !== undefined) {
			return v;
		}
		if (Date.now() > deadline) {
			throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
		}
		await new Promise((r) => setTimeout(r, 100));
	}
}

/** readIfExists returns a file's text, or undefined when it does not exist (yet). */
export function readIfExists(file: string): string | undefined {
	try {
		return fs.readFileSync(file, "utf8");
	} catch {
		return undefined;
	}
}
