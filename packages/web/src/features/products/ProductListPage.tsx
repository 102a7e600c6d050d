import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function ProductListPage() {
  return <FeaturePending titleKey="pages.products" />;
}
