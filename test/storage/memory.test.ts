import { createMemoryStorage } from '../../src/storage/memory/index.js';
import { describeStorageContract } from '../../src/storage/testing/index.js';

describeStorageContract('memory', () => createMemoryStorage());
