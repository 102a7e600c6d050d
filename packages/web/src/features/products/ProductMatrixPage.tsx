import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function ProductMatrixPage() {
  return <FeaturePending titleKey="pages.productMatrix" />;
}
