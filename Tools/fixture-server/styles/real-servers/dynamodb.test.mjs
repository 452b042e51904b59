// Unit tests of the dynamodb style (dynamodb.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StyleError } from '../../shared/errors.mjs';
import { dynamoKey, parseDynamoScan, wrapDynamoDb } from './dynamodb.mjs';
import { bytes, listSettings as settings } from '../../testing/units.mjs';

const items = [Buffer.from('[{"id":"a"},{"id":"b"}]')];

describe('dynamodb (DynamoDB Scan, as moto serves it)', () => {
  const scan = (body, idKind = 'string') => parseDynamoScan(typeof body === 'string' ? body : JSON.stringify(body), { ...settings, idKind });
  const refused = (body, idKind) => {
    try {
      scan(body, idKind);
    } catch (error) {
      assert.ok(error instanceof StyleError);
      assert.deepEqual(error.headers, { 'Content-Type': 'application/x-amz-json-1.0' });
      assert.equal(error.status, 400);
      return error.body;
    }
    assert.fail('not refused');
  };

  test('TableName, Limit (default --page-size, capped silently), ExclusiveStartKey of the id kind; other members ignored', () => {
    assert.deepEqual(scan({ TableName: 'notes' }), { body: { TableName: 'notes' }, limit: 10, startingAfter: null });
    assert.deepEqual(scan({ TableName: 'notes', Limit: 3, ExclusiveStartKey: { id: { S: 'n41' } }, Select: 'ALL_ATTRIBUTES' }).startingAfter, 'n41');
    assert.equal(scan({ TableName: 'notes', Limit: 3 }).limit, 3);
    assert.equal(scan({ TableName: 'notes', Limit: 500 }).limit, 50);
    assert.equal(scan({ TableName: 'notes', ExclusiveStartKey: null }).startingAfter, null);
    assert.equal(scan({ TableName: 'notes', ExclusiveStartKey: { id: { N: '12' } } }, 'int').startingAfter, '12');
    assert.deepEqual(dynamoKey('n41'), { id: { S: 'n41' } });
    assert.deepEqual(dynamoKey(12), { id: { N: '12' } });
  });

  test("DynamoDB's errors: SerializationException, ValidationException, ResourceNotFoundException", () => {
    const error = (type, message) => ({ __type: type, message });
    const badKey = error('com.amazon.coral.validation#ValidationException', 'The provided starting key is invalid: The provided key element does not match the schema');
    assert.deepEqual(refused('{'), error('com.amazon.coral.service#SerializationException', 'the body is not JSON'));
    assert.deepEqual(refused('[]'), error('com.amazon.coral.service#SerializationException', 'the body is not a JSON object'));
    assert.deepEqual(refused({ Limit: 3 }),
      error('com.amazon.coral.validation#ValidationException', "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null"));
    assert.deepEqual(refused({ TableName: 'other' }), error('com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', 'Requested resource not found'));
    assert.deepEqual(refused({ TableName: 'notes', Limit: 0 }),
      error('com.amazon.coral.validation#ValidationException', "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"));
    assert.equal(refused({ TableName: 'notes', Limit: '3' }).__type, 'com.amazon.coral.service#SerializationException');
    for (const key of [{}, { id: 'n1' }, { id: { S: 1 } }, { id: { N: '1' } }, { id: { S: 'n1', N: '1' } }, { id: { S: 'n1' }, rank: { N: '1' } }, [], 'n1']) {
      assert.deepEqual(refused({ TableName: 'notes', ExclusiveStartKey: key }), badKey, JSON.stringify(key));
    }
    assert.deepEqual(refused({ TableName: 'notes', ExclusiveStartKey: { id: { S: '1' } } }, 'int'), badKey);
  });

  test('the envelope: Count, Items, ScannedCount, LastEvaluatedKey (left out on the last page), as application/x-amz-json-1.0', () => {
    const page = wrapDynamoDb(items, { count: 2, lastEvaluatedKey: { id: { S: 'b' } } });
    assert.deepEqual(page.headers, { 'Content-Type': 'application/x-amz-json-1.0' });
    assert.equal(bytes(page.parts).toString(), '{"Count":2,"Items":[{"id":"a"},{"id":"b"}],"ScannedCount":2,"LastEvaluatedKey":{"id":{"S":"b"}}}');
    assert.equal(bytes(wrapDynamoDb(items, { count: 2, lastEvaluatedKey: null }).parts).toString(), '{"Count":2,"Items":[{"id":"a"},{"id":"b"}],"ScannedCount":2}');
  });
});
