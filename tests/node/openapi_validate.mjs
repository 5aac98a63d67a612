#!/usr/bin/env node
// Validates the backend's OpenAPI contract (resources/openapi.yaml) against the OpenAPI 3.0
// schema and resolves every $ref, using @apidevtools/swagger-parser.
//
//   node tests/node/openapi_validate.mjs resources/openapi.yaml
//
// Exit codes: 0 valid ("openapi.yaml valid"), 1 invalid or unreadable (the error is printed),
// 77 when @apidevtools/swagger-parser cannot be imported (CTest's "skipped" convention).

import path from 'node:path';

const file = process.argv[2];
if (!file) {
    console.error('usage: node openapi_validate.mjs <path/to/openapi.yaml>');
    process.exit(1);
}

let SwaggerParser;
try {
    const module = await import('@apidevtools/swagger-parser');
    SwaggerParser = module.default ?? module;
} catch (error) {
    console.error('SKIP: cannot import @apidevtools/swagger-parser (' + error.message + ').');
    console.error('Install it next to this script (npm install @apidevtools/swagger-parser) to validate the contract.');
    process.exit(77);
}

try {
    const api = await SwaggerParser.validate(path.resolve(file));
    if (!api.openapi || !api.openapi.startsWith('3.'))
        throw new Error(`expected an OpenAPI 3 document, got "${api.openapi ?? api.swagger}"`);
    console.log('openapi.yaml valid');
    process.exit(0);
} catch (error) {
    console.error(`${file}: ${error.message}`);
    process.exit(1);
}
