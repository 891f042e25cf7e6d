import { adviceSuite } from './suite.js';

adviceSuite(3, 4);
